// Public surface of the rewards domain: code outside lib/rewards imports it from here only.
export {
  type AllowanceDeps,
  revokePurchaseAllowance,
  setPurchaseAllowance,
} from './allowance.js';
export { revokePurchaseAllowanceContract, setPurchaseAllowanceContract } from './allowance-contracts.js';
export {
  getCurrentMultiplierContract,
  getMultiplierCostContract,
  getMultiplierCostForPlacementContract,
} from './contracts.js';
export { type FiguresDeps, nextDailyPayout, syncGameFigures } from './figures.js';
export {
  type ClaimableCoinAllocations,
  type CoinAllocation,
  type MyRewardsDeps,
  myRewards,
  type PayoutEntry,
  type PayoutHistory,
} from './me.js';
export { getMyRewardsContract } from './me-contracts.js';
export { activeMultiplierBps, applyMultiplier, multiplierSlotKey } from './multiplier.js';
export {
  buildPayoutTransfer,
  distributionRule,
  poolAllocationWrite,
  poolBooks,
  poolPayoutWrite,
  vaultSigner,
} from './payout.js';
export type { PoolDeps, RecentSettlements, SettlementSummary } from './pool.js';
export { gameRewardsPool } from './pool.js';
export { getGameRewardsPoolContract } from './pool-contracts.js';
export {
  feedsPrice,
  fixedPrice,
  type PriceSource,
  PriceUnavailable,
  priceFromConfig,
  type SolUsd,
} from './price.js';
export { usdOf } from './pricing.js';
export { purchaseMultiplier } from './purchase.js';
export { purchaseMultiplierContract } from './purchase-contracts.js';
export type { RewardsDeps } from './purchase-transfer.js';
export type { DayBoard, QuoteDeps, Standing } from './quotes.js';
export { costForPlacement, currentMultiplier, multiplierCost } from './quotes.js';
