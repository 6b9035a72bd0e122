// Public surface of the games domain: code outside lib/games imports it from here only.
import type { Contract } from '../core/contract.js';
import {
  batchGamesByIdsContract,
  batchGamesByTokenIdsContract,
  claimOwnershipContract,
  createGameContract,
  createGameImageUploadUrlContract,
  getCoinMetadataContract,
  getGameContract,
  getGamesByTokenContract,
  listGamesContract,
  listMyGamesContract,
  toggleVisibilityContract,
  updateGameContract,
} from './contracts.js';

export { capOrDefault, PLAY_CAPS, type PlayCaps } from './caps.js';
export { toggleVisibility } from './changes.js';
export {
  batchGamesByIdsContract,
  batchGamesByTokenIdsContract,
  claimOwnershipContract,
  createGameContract,
  createGameImageUploadUrlContract,
  getCoinMetadataContract,
  getGameContract,
  getGamesByTokenContract,
  LARGE_IMAGE_HINT,
  listGamesContract,
  listMyGamesContract,
  toggleVisibilityContract,
  updateGameContract,
} from './contracts.js';
export { emittingGameIds, listAirdropCoins, listGameIds } from './listings.js';
export { moveSplitShares } from './merge.js';
export { type CoinSummary, controllerOf, effectiveSplit, type GameRecord } from './model.js';
export type { ControlChange, OwnershipDeps } from './ownership.js';
export { claimOwnership } from './ownership.js';
export {
  gamesByAirdropMint,
  gamesByCoinMints,
  gamesByIds,
  gamesByToken,
  listGames,
  listMyGames,
} from './queries.js';
export {
  coinMetadata,
  isController,
  isCreatorOrOwner,
  requireGame,
  requireOwnedGame,
  toView,
} from './read.js';
export {
  endCoinWrite,
  gameUnchangedCheck,
  getCoinGameIds,
  getGame,
  recordCoinWrites,
  saveGame,
  saveGameFigures,
} from './repository.js';
export type { GamesDeps } from './service.js';
export { createGame, updateGame } from './service.js';
export { createImageUpload, type ImageUploads, type UploadClaims, type UploadUrls } from './uploads.js';

/** The domain's operations in the public API, in the order of the OpenAPI document (lib/api/catalogue.ts). */
export const contracts: readonly Contract[] = [
  listGamesContract,
  createGameContract,
  createGameImageUploadUrlContract,
  updateGameContract,
  getCoinMetadataContract,
  getGameContract,
  listMyGamesContract,
  toggleVisibilityContract,
  claimOwnershipContract,
  batchGamesByIdsContract,
  batchGamesByTokenIdsContract,
  getGamesByTokenContract,
];
