import { grantAuthenticator, playerAuthenticator } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { getSessionTokenContract, openSession } from '../../lib/play/index.js';

export const handler = route(
  getSessionTokenContract,
  async ({ auth, query }) => ({
    data: await openSession(auth, query.gameId, new Date(), query.idempotencyKey),
  }),
  { bearer: playerAuthenticator, grant: grantAuthenticator },
);
