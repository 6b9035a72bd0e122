// Production wiring of the pool read: the chain (vault balance) and the price only. Its own module so that the
// function does not bundle the purchase wiring (custodial wallet signer, wallet store; see ./deps.ts).
import { chainFromConfig } from '../chain/index.js';
import { priceFromConfig } from './price.js';
import type { RewardsDeps } from './service.js';

export const poolDeps = (): Pick<RewardsDeps, 'chain' | 'price'> => ({
  chain: chainFromConfig(),
  price: priceFromConfig(),
});
