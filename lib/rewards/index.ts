// Public surface of the rewards domain: code outside lib/rewards imports it from here only.
export {
  getCurrentMultiplierContract,
  getMultiplierCostContract,
  getMultiplierCostForPlacementContract,
} from './contracts.js';
export { activeMultiplierBps, applyMultiplier, multiplierSlotKey } from './multiplier.js';
export type { PoolDeps } from './pool.js';
export { gameRewardsPool } from './pool.js';
export { getGameRewardsPoolContract } from './pool-contracts.js';
export { priceFromConfig } from './price.js';
export { purchaseMultiplier } from './purchase.js';
export { purchaseMultiplierContract } from './purchase-contracts.js';
export type { RewardsDeps } from './purchase-transfer.js';
export type { DayBoard, QuoteDeps, Standing } from './quotes.js';
export { costForPlacement, currentMultiplier, multiplierCost } from './quotes.js';
