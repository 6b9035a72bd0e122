import { playerAuthenticator } from '../../lib/auth/player.js';
import { route } from '../../lib/http/route.js';
import { openSession } from '../../lib/play/sdk.js';
import { getSessionTokenContract } from '../../lib/play/sdk-contracts.js';

export const handler = route(
  getSessionTokenContract,
  async ({ auth, query }) => ({
    data: await openSession(auth, query.gameId, new Date(), query.idempotencyKey),
  }),
  { bearer: playerAuthenticator },
);
