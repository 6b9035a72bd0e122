import { route } from '../../lib/http/route.js';
import { buildClaimTransactions } from '../../lib/snapshots/claims.js';
import { buildClaimTransactionsContract } from '../../lib/snapshots/contracts.js';
import { claimDeps } from '../../lib/snapshots/deps.js';

export const handler = route(buildClaimTransactionsContract, async ({ body }) => ({
  data: await buildClaimTransactions(claimDeps(), body),
}));
