// Public surface of the rewards domain: code outside lib/rewards imports it from here only.
export {
  getCurrentMultiplierContract,
  getGameRewardsPoolContract,
  getMultiplierCostContract,
  getMultiplierCostForPlacementContract,
  purchaseMultiplierContract,
} from './contracts.js';
export { activeMultiplierBps, applyMultiplier, multiplierSlotKey } from './multiplier.js';
export { priceFromConfig } from './price.js';
export type { DayBoard, QuoteDeps, Standing } from './quotes.js';
export { costForPlacement, currentMultiplier, multiplierCost } from './quotes.js';
export type { PoolDeps, RewardsDeps } from './service.js';
export { gameRewardsPool, purchaseMultiplier } from './service.js';
