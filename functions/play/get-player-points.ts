import { sessionAuthenticator } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { getPlayerPointsContract, playerPoints } from '../../lib/play/index.js';

export const handler = route(
  getPlayerPointsContract,
  async ({ auth }) => ({ data: await playerPoints(auth) }),
  {
    session: sessionAuthenticator,
  },
);
