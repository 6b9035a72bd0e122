import { chainReaderFromConfig } from '../../lib/chain/index.js';
import { route } from '../../lib/http/route.js';
import {
  buildClaimTransactions,
  buildClaimTransactionsContract,
  type ClaimDeps,
  claimStores,
  loadDistributionVault,
  reserveClaim,
} from '../../lib/snapshots/index.js';

export const sideEffects: ClaimDeps = {
  chain: chainReaderFromConfig(),
  ...claimStores,
  loadVault: loadDistributionVault,
  reserveClaim,
};

export const handler = route(buildClaimTransactionsContract, async ({ body }) => ({
  data: await buildClaimTransactions(body, sideEffects),
}));
