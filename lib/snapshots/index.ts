// Public surface of the snapshots domain: code outside lib/snapshots imports it from here only.
import type { Contract } from '../core/contract.js';
import { submitClaimContract } from './claim-submit-contract.js';
import {
  buildClaimTransactionsContract,
  getClaimStatusContract,
  getCoinEmissionContract,
  getSnapshotContract,
  getSnapshotProofContract,
  listSnapshotHoldersContract,
} from './contracts.js';

export { computeAllocations, encodeAddress } from './allocation.js';
export type { AllocationDeps, CoinAllocation } from './allocations.js';
export { claimableCoinAllocations, coinAllocationDeps } from './allocations.js';
export type { BuilderDeps } from './builder.js';
export { buildSnapshot, processSnapshotBatch } from './builder.js';
export type { MigrationDeps, MigrationReport } from './claim-migration.js';
export { migrateLegacyClaims } from './claim-migration.js';
export { claimStores } from './claim-stores.js';
export type { SubmitClaimDeps } from './claim-submit.js';
export { submitClaim } from './claim-submit.js';
export { submitClaimContract } from './claim-submit-contract.js';
export type { ClaimDeps, ClaimStatusDeps } from './claims.js';
export { buildClaimTransactions, getClaimStatus } from './claims.js';
export {
  airdropCoinMints,
  coinEmission,
  findAirdropCoin,
  findEmissionSchedule,
  findVaultAddress,
  loadDistributionVault,
} from './coins.js';
export {
  buildClaimTransactionsContract,
  getClaimStatusContract,
  getCoinEmissionContract,
  getSnapshotContract,
  getSnapshotProofContract,
  listSnapshotHoldersContract,
} from './contracts.js';
export type { CoinEmissionDeps, EmissionOutcome } from './emission.js';
export { coinEmissionDeps, settleCoinEmission } from './emission.js';
export { allocationDigest, EMISSION_POOL, splitByPoints } from './emission-math.js';
export {
  type ByteRange,
  loadSnapshotIndex,
  readProof,
  type SnapshotIndex,
  serializeSnapshot,
} from './layout.js';
export {
  buildDistributionFromColumns,
  buildDistributionFromSorted,
  buildTree,
  encodeLeafRecords,
  HASH_BYTES,
  hashLeafRecords,
  type MerkleTree,
  proofFor,
  sortOrder,
  treeDepth,
  verifyProof,
} from './merkle.js';
export {
  deleteLegacyClaim,
  getClaimRecord,
  getSummary,
  listClaimCoins,
  listClaimRecords,
  listLegacyClaims,
  noteClaimSignature,
  putMigratedClaim,
  putSummaryIfNewer,
  recordNewClaim,
  settleClaim,
} from './repository.js';
export { scheduleSnapshots } from './schedule.js';
export type { ReadDeps, SnapshotReadDeps } from './service.js';
export { getSnapshot, getSnapshotProof, listSnapshotHolders } from './service.js';
export { getSnapshotObject, putSnapshotObjects } from './storage.js';

/** The domain's operations in the public API, in the order of the OpenAPI document (lib/api/catalogue.ts). */
export const contracts: readonly Contract[] = [
  getSnapshotContract,
  getSnapshotProofContract,
  listSnapshotHoldersContract,
  buildClaimTransactionsContract,
  submitClaimContract,
  getClaimStatusContract,
  getCoinEmissionContract,
];
