import { route } from '../../lib/http/route.js';
import { getGameRewardsPoolContract } from '../../lib/rewards/contracts.js';
import { poolDeps } from '../../lib/rewards/pool-deps.js';
import { gameRewardsPool } from '../../lib/rewards/service.js';

export const handler = route(getGameRewardsPoolContract, async ({ params }) => ({
  data: await gameRewardsPool(params.gameId, poolDeps()),
}));
