import { chainReaderFromConfig } from '../../lib/chain/index.js';
import { now } from '../../lib/core/time.js';
import { route } from '../../lib/http/route.js';
import {
  buildClaimTransactions,
  buildClaimTransactionsContract,
  type ClaimDeps,
  getSnapshotObject,
  getSummary,
  listClaimRecords,
  loadDistributionVault,
  recordClaim,
} from '../../lib/snapshots/index.js';

export const sideEffects: ClaimDeps = {
  chain: chainReaderFromConfig(),
  getSummary,
  getObject: getSnapshotObject,
  loadVault: loadDistributionVault,
  listClaimRecords,
  recordClaim,
  now,
};

export const handler = route(buildClaimTransactionsContract, async ({ body }) => ({
  data: await buildClaimTransactions(body, sideEffects),
}));
