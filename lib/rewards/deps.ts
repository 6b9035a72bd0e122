// Production wiring of the rewards endpoints: adapters created once per container, configuration parsed at
// first use (SOLANA_RPC_URL for the chain; SOL_USD_PRICE* for the price, see ./price.ts).
import { walletSignerFromConfig } from '../adapters/wallet-signer.js';
import { chainFromConfig } from '../chain/index.js';
import { loadWallet } from '../users/repository.js';
import { priceFromConfig } from './price.js';
import type { RewardsDeps } from './service.js';

const now = () => new Date();

/** The pool read needs the chain (vault balance) and the price. */
export const poolDeps = (): Pick<RewardsDeps, 'chain' | 'price'> => ({
  chain: chainFromConfig(),
  price: priceFromConfig(),
});

let deps: RewardsDeps | undefined;

/** Everything a purchase or a pool read needs. */
export const rewardsDeps = (): RewardsDeps => {
  deps ??= {
    chain: chainFromConfig(),
    signer: walletSignerFromConfig(loadWallet),
    loadWallet,
    price: priceFromConfig(),
    now,
  };
  return deps;
};
