// Public surface of the snapshots domain: code outside lib/snapshots imports it from here only.
import type { Contract } from '../core/contract.js';
import { submitClaimContract } from './claims/submit-contract.js';
import {
  buildClaimTransactionsContract,
  getClaimStatusContract,
  getCoinEmissionContract,
  getSnapshotContract,
  getSnapshotProofContract,
  listSnapshotHoldersContract,
} from './contracts.js';

export { computeAllocations, encodeAddress } from './allocation.js';
export type { BuilderDeps } from './builder.js';
export { buildSnapshot, processSnapshotBatch } from './builder.js';
export { claimableCoinAllocations, coinAllocationDeps } from './claims/allocations.js';
export type { ClaimDeps, ClaimStatusDeps } from './claims/claims.js';
export { buildClaimTransactions, getClaimStatus } from './claims/claims.js';
export { migrateLegacyClaims } from './claims/migration.js';
export { claimStores } from './claims/stores.js';
export type { SubmitClaimDeps } from './claims/submit.js';
export { submitClaim } from './claims/submit.js';
export { submitClaimContract } from './claims/submit-contract.js';
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
export { coinEmissionDeps, settleCoinEmission } from './emission/emission.js';
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
  getSummary,
  listClaimCoins,
  listLegacyClaims,
  noteClaimSignature,
  putMigratedClaim,
  putSummaryIfNewer,
  recordNewClaim,
} from './repository.js';
export { scheduleSnapshots } from './schedule.js';
export type { SnapshotReadDeps } from './service.js';
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
