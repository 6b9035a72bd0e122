import { connectRequest, getConnectRequestContract } from '../../lib/connect/index.js';
import { route } from '../../lib/http/route.js';

export const handler = route(getConnectRequestContract, async ({ query }) => ({
  data: await connectRequest(query),
}));
