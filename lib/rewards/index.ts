// Public surface of the rewards domain (multipliers, purchases, the pools' vaults and books, their daily settlement
// and payouts, and the views of them): code outside lib/rewards imports it from here only.
import type { Contract } from '../core/contract.js';
import { revokePurchaseAllowanceContract, setPurchaseAllowanceContract } from './allowance-contracts.js';
import {
  getCurrentMultiplierContract,
  getMultiplierCostContract,
  getMultiplierCostForPlacementContract,
} from './contracts.js';
import { getMyRewardsContract } from './me-contracts.js';
import { getGameRewardsPoolContract, getGameRewardsPoolHistoryContract } from './pool-contracts.js';
import { purchaseMultiplierContract } from './purchase-contracts.js';

export {
  type AllowanceDeps,
  revokePurchaseAllowance,
  setPurchaseAllowance,
} from './allowance.js';
export { revokePurchaseAllowanceContract, setPurchaseAllowanceContract } from './allowance-contracts.js';
export { allowanceSetWrite, getAllowance } from './allowance-repository.js';
export {
  getCurrentMultiplierContract,
  getMultiplierCostContract,
  getMultiplierCostForPlacementContract,
} from './contracts.js';
export {
  type DepositView,
  depositToPeriod,
  knownDeposit,
  MAX_DEPOSIT_LAMPORTS,
  MIN_DEPOSIT_LAMPORTS,
  periodFundView,
} from './deposit.js';
export { type FiguresDeps, nextDailyPayout, syncGameFigures } from './figures.js';
export type { InboundDeps } from './inbound.js';
export { type ClaimableCoinAllocations, type CoinAllocation, type MyRewardsDeps, myRewards } from './me.js';
export { getMyRewardsContract } from './me-contracts.js';
export { DISTRIBUTION as distributionRule, MAX_ALLOWANCE_LAMPORTS } from './model.js';
export { activeMultiplierBps, applyMultiplier, multiplierSlotKey } from './multiplier.js';
export type { PoolDeps } from './pool.js';
export { gameRewardsPool } from './pool.js';
export { getGameRewardsPoolContract, getGameRewardsPoolHistoryContract } from './pool-contracts.js';
export { poolHistory } from './pool-history.js';
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
export {
  type Allocation,
  type AllocationInput,
  allocateDay,
  allocatePrizes,
  byRank,
} from './settlement/allocation.js';
export type { DayStanding, DayStandings, StandingsCursor } from './settlement/freeze.js';
export { boardMayChange, moveCarry, redirectPayouts } from './settlement/merge.js';
export type { FrozenPlayer, PayoutLine, PrizeRun, Settlement } from './settlement/model.js';
export { MAX_LINE_FAILURES } from './settlement/payout.js';
export {
  type PeriodStanding,
  type PeriodStandings,
  type PrizeDeps,
  type PrizeInput,
  prizeRunOf,
  settlePrizeRun,
} from './settlement/prizes.js';
export type { PayoutEntry, SettlementSummary } from './settlement/queries.js';
export { parkPayout, processSettlementBatch, sendSettlementMessages } from './settlement/queue.js';
export { payoutRecords, putPlayerChunks, readPlayers } from './settlement/repository.js';
export {
  dueDays,
  type GamesActiveOn,
  type PeriodCloseMessage,
  type ScheduleDeps,
  type SettlementMessage,
  scheduleSettlements,
} from './settlement/schedule.js';
export {
  PayoutsOutstanding,
  type SettleCoinEmission,
  type SettlementDeps,
  type SettleOptions,
  type SettleOutcome,
  settleGameDay,
  settlesAt,
} from './settlement/settle.js';

/** The domain's operations in the public API, in the order of the OpenAPI document (lib/api/catalogue.ts). */
export const contracts: readonly Contract[] = [
  getMultiplierCostContract,
  getCurrentMultiplierContract,
  getMultiplierCostForPlacementContract,
  purchaseMultiplierContract,
  getGameRewardsPoolContract,
  getGameRewardsPoolHistoryContract,
  getMyRewardsContract,
  setPurchaseAllowanceContract,
  revokePurchaseAllowanceContract,
];
