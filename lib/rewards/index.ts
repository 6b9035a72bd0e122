// Public surface of the rewards domain: code outside lib/rewards imports it from here only.
export {
  getCurrentMultiplierContract,
  getGameRewardsPoolContract,
  getMultiplierCostContract,
  getMultiplierCostForPlacementContract,
  purchaseMultiplierContract,
} from './contracts.js';
export { activeMultiplierBps, applyMultiplier, multiplierSlotKey } from './multiplier.js';
export type { PoolDeps } from './pool.js';
export { gameRewardsPool } from './pool.js';
export { priceFromConfig } from './price.js';
export { purchaseMultiplier } from './purchase.js';
export type { RewardsDeps } from './purchase-transfer.js';
export type { DayBoard, QuoteDeps, Standing } from './quotes.js';
export { costForPlacement, currentMultiplier, multiplierCost } from './quotes.js';
