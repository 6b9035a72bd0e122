import { bearerOrHmac } from '../../lib/auth/index.js';
import { deleteGameClient, deleteOAuthClientContract } from '../../lib/connect/index.js';
import { route } from '../../lib/http/route.js';

export const handler = route(
  deleteOAuthClientContract,
  async ({ auth, params }) => ({ data: await deleteGameClient(auth, params.gameId, params.clientId) }),
  bearerOrHmac,
);
