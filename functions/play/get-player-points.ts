import { sessionAuthenticator } from '../../lib/auth/player.js';
import { route } from '../../lib/http/route.js';
import { playerPoints } from '../../lib/play/sdk.js';
import { getPlayerPointsContract } from '../../lib/play/sdk-contracts.js';

export const handler = route(
  getPlayerPointsContract,
  async ({ auth }) => ({ data: await playerPoints(auth) }),
  {
    session: sessionAuthenticator,
  },
);
