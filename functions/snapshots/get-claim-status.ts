import { chainReaderFromConfig } from '../../lib/chain/index.js';
import { now } from '../../lib/core/time.js';
import { route } from '../../lib/http/route.js';
import {
  type ClaimStatusDeps,
  findEmissionSchedule,
  findVaultAddress,
  getClaimStatus,
  getClaimStatusContract,
  getSnapshotObject,
  getSummary,
  listClaimRecords,
  recordClaim,
} from '../../lib/snapshots/index.js';

// Reads only: the vault's address comes from the launch job, its key stays sealed (and unbundled).
export const sideEffects: ClaimStatusDeps = {
  chain: chainReaderFromConfig(),
  getSummary,
  getObject: getSnapshotObject,
  findVaultAddress,
  listClaimRecords,
  recordClaim,
  findEmissionSchedule,
  now,
};

export const handler = route(getClaimStatusContract, async ({ params }) => ({
  data: await getClaimStatus(params.gtokenAddress, params.wallet, sideEffects),
}));
