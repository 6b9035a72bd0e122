import { sessionAuthenticator } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { flush, flushContract } from '../../lib/play/index.js';

export const handler = route(flushContract, async ({ auth, body }) => ({ data: await flush(auth, body) }), {
  session: sessionAuthenticator,
});
