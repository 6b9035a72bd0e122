import { bearerOrHmac } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { getGameRewardsPoolHistoryContract, poolHistory } from '../../lib/rewards/index.js';

export const handler = route(
  getGameRewardsPoolHistoryContract,
  async ({ auth, params, query }) => poolHistory(auth, params.gameId, query),
  bearerOrHmac,
);
