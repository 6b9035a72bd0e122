import { bearerOrHmac } from '../../lib/auth/index.js';
import { listGameClients, listOAuthClientsContract } from '../../lib/connect/index.js';
import { route } from '../../lib/http/route.js';

export const handler = route(
  listOAuthClientsContract,
  async ({ auth, params }) => ({ data: await listGameClients(auth, params.gameId) }),
  bearerOrHmac,
);
