import type { Contract } from './core/contract.js';
import {
  batchGamesByIdsContract,
  batchGamesByTokenIdsContract,
  claimOwnershipContract,
  createGameContract,
  createGameImageUploadUrlContract,
  getGameContract,
  getGamesByTokenContract,
  listGamesContract,
  listMyGamesContract,
  toggleVisibilityContract,
  updateGameContract,
} from './games/contracts.js';
import {
  completeLaunchContract,
  getLaunchJobContract,
  launchGameCoinContract,
} from './launcher/contracts.js';
import {
  batchSavePointsContract,
  getDevLeaderboardContract,
  getDevPointsContract,
  invalidateSessionsContract,
  listDevSessionsContract,
  listRiskySessionsContract,
} from './play/contracts.js';
import {
  commitContract,
  flushContract,
  getPlayerPointsContract,
  getSessionTokenContract,
  sessionStateContract,
} from './play/sdk-contracts.js';
import { apiReferenceContract, apiReferenceJsonContract } from './reference/contracts.js';
import {
  getCurrentMultiplierContract,
  getGameRewardsPoolContract,
  getMultiplierCostContract,
  getMultiplierCostForPlacementContract,
  purchaseMultiplierContract,
} from './rewards/contracts.js';
import {
  buildClaimTransactionsContract,
  getClaimStatusContract,
  getSnapshotContract,
  getSnapshotProofContract,
  listSnapshotHoldersContract,
} from './snapshots/contracts.js';
import {
  createHmacSignatureContract,
  getMeContract,
  getMyStatsContract,
  resetSecretContract,
} from './user/contracts.js';

/** Every operation of the public API. serverless.yml has exactly one function per entry (checked by a test). */
export const contracts: readonly Contract[] = [
  apiReferenceContract,
  apiReferenceJsonContract,
  createHmacSignatureContract,
  getMeContract,
  getMyStatsContract,
  resetSecretContract,
  listGamesContract,
  createGameContract,
  createGameImageUploadUrlContract,
  updateGameContract,
  getGameContract,
  listMyGamesContract,
  toggleVisibilityContract,
  claimOwnershipContract,
  batchGamesByIdsContract,
  batchGamesByTokenIdsContract,
  getGamesByTokenContract,
  batchSavePointsContract,
  getDevPointsContract,
  getDevLeaderboardContract,
  listDevSessionsContract,
  listRiskySessionsContract,
  invalidateSessionsContract,
  getSessionTokenContract,
  flushContract,
  commitContract,
  sessionStateContract,
  getPlayerPointsContract,
  launchGameCoinContract,
  getLaunchJobContract,
  completeLaunchContract,
  getSnapshotContract,
  getSnapshotProofContract,
  listSnapshotHoldersContract,
  buildClaimTransactionsContract,
  getClaimStatusContract,
  getMultiplierCostContract,
  getCurrentMultiplierContract,
  getMultiplierCostForPlacementContract,
  purchaseMultiplierContract,
  getGameRewardsPoolContract,
];
