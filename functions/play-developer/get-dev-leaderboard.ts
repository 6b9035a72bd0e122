import { bearerOrHmac } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { devLeaderboard, getDevLeaderboardContract } from '../../lib/play/index.js';

export const handler = route(
  getDevLeaderboardContract,
  async ({ auth, params, query }) => ({ data: await devLeaderboard(auth, params.gameId, query) }),
  bearerOrHmac,
);
