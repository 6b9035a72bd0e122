import { bearerOnly } from '../../lib/auth/index.js';
import { listConnections, listConnectionsContract } from '../../lib/connect/index.js';
import { route } from '../../lib/http/route.js';

export const handler = route(
  listConnectionsContract,
  async ({ auth }) => ({ data: await listConnections(auth) }),
  bearerOnly,
);
