import { chainReaderFromConfig } from '../../lib/chain/index.js';
import { route } from '../../lib/http/route.js';
import {
  gameRewardsPool,
  getGameRewardsPoolContract,
  type PoolDeps,
  priceFromConfig,
} from '../../lib/rewards/index.js';

export const sideEffects: PoolDeps = {
  chain: chainReaderFromConfig(),
  price: priceFromConfig(),
};

export const handler = route(getGameRewardsPoolContract, async ({ params }) => ({
  data: await gameRewardsPool(params.gameId, sideEffects),
}));
