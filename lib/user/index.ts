// Public surface of the user domain: code outside lib/user imports it from here only.
import type { Contract } from '../core/contract.js';
import {
  createHmacSignatureContract,
  getMeContract,
  getMyStatsContract,
  resetSecretContract,
  updateMeContract,
} from './contracts.js';

export {
  createHmacSignatureContract,
  getMeContract,
  getMyStatsContract,
  resetSecretContract,
  updateMeContract,
} from './contracts.js';
export {
  configuredDirectory,
  type IdentityDirectory,
  IMPORT_BATCH_LIMIT,
  type ImportResult,
} from './directory.js';
export { createHmacSignature } from './hmac-helper.js';
export { gameSubjectPrefix, isDid, type ParsedIdentifier, parseIdentifiers } from './identifiers.js';
export { type ImportPace, sharedImportPace } from './import-pace.js';
export {
  type ImportDeps,
  importPending,
  type OwnedSubject,
  type PendingImport,
  processImportBatch,
  queueImports,
} from './importer.js';
export { userKeys } from './keys.js';
export { type BoardAudience, studioIdentifier, studioIdentifiers } from './known-as.js';
export { type LegacyWallet, listLegacyWallets, retireLegacyWallet } from './legacy-wallets.js';
export {
  beginMerge,
  completeMerge,
  findSplitIdentities,
  type IdentityProfile,
  listIdentityProfiles,
  moveIdentifiers,
  type SplitIdentity,
  type SplitSearch,
} from './merge.js';
export { getMe, getMyStats, updateMe } from './profile.js';
export {
  addToStat,
  getApiKeyRecord,
  importStates,
  statIncrementWrite,
  type UserStat,
} from './repository.js';
export { type PlayerIdToArcId, resolveIdentifiers, resolveKnownIdentifiers } from './resolver.js';
export { apiKeyOf, ensureUserForSubject, resetSecret } from './service.js';
export {
  loadWallet,
  requireDelegated,
  requireDelegatedWallet,
  WALLET_CACHE_TTL_MS,
  walletAddresses,
} from './wallet.js';

/** The domain's operations in the public API, in the order of the OpenAPI document (lib/api/catalogue.ts). */
export const contracts: readonly Contract[] = [
  createHmacSignatureContract,
  getMeContract,
  updateMeContract,
  getMyStatsContract,
  resetSecretContract,
];
