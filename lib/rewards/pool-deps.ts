// Production wiring of the pool read: the chain reader (vault balance) and the price only. Its own module so
// that the function does not bundle the purchase wiring (custodial wallet signer, wallet store; see ./deps.ts).
import { chainReaderFromConfig } from '../chain/index.js';
import { priceFromConfig } from './price.js';
import type { PoolDeps } from './service.js';

export const poolDeps = (): PoolDeps => ({
  chain: chainReaderFromConfig(),
  price: priceFromConfig(),
});
