// Production wiring of the rewards endpoints: adapters created once per container, configuration parsed at
// first use (SOLANA_RPC_URL for the chain; SOL_USD_PRICE* for the price, see ./price.ts).
import { walletSignerFromConfig } from '../adapters/wallet-signer.js';
import { chainFromConfig } from '../chain/index.js';
import { loadWallet } from '../users/repository.js';
import { priceFromConfig } from './price.js';
import type { RewardsDeps } from './service.js';

const now = () => new Date();

let deps: RewardsDeps | undefined;

/** Everything a purchase needs (the pool read has its own, smaller wiring: ./pool-deps.ts). */
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
