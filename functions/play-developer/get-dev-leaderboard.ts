import { hmacOnly } from '../../lib/auth/authenticators.js';
import { route } from '../../lib/http/route.js';
import { getDevLeaderboardContract } from '../../lib/play/contracts.js';
import { devLeaderboard } from '../../lib/play/queries.js';

export const handler = route(
  getDevLeaderboardContract,
  async ({ auth, params, query }) => ({ data: await devLeaderboard(auth, params.gameId, query) }),
  hmacOnly,
);
