import { chainFromConfig } from '../../lib/chain/index.js';
import { route } from '../../lib/http/route.js';
import {
  buildClaimTransactions,
  buildClaimTransactionsContract,
  type ClaimDeps,
  claimStores,
  loadDistributionVault,
  recordNewClaim,
} from '../../lib/snapshots/index.js';

export const sideEffects: ClaimDeps = {
  chain: chainFromConfig(),
  ...claimStores,
  loadVault: loadDistributionVault,
  recordNewClaim,
};

export const handler = route(buildClaimTransactionsContract, async ({ body }) => ({
  data: await buildClaimTransactions(body, sideEffects),
}));
