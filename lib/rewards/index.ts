// Public surface of the rewards domain (multipliers, purchases, the pools' vaults and books, their daily settlement
// and payouts, and the views of them): code outside lib/rewards imports it from here only.
import type { Contract } from '../core/contract.js';
import { revokePurchaseAllowanceContract, setPurchaseAllowanceContract } from './allowances/contracts.js';
import {
  getCurrentMultiplierContract,
  getMultiplierCostContract,
  getMultiplierCostForPlacementContract,
} from './contracts.js';
import { getMyRewardsContract } from './me-contracts.js';
import { getGameRewardsPoolContract, getGameRewardsPoolHistoryContract } from './pools/contracts.js';
import { purchaseMultiplierContract } from './purchases/contracts.js';
import {
  getDayStatementContract,
  getDayStatementLineContract,
  getPrizeStatementContract,
  getPrizeStatementLineContract,
  listStatementsContract,
} from './settlement/contracts.js';

export {
  type AllowanceDeps,
  revokePurchaseAllowance,
  setPurchaseAllowance,
} from './allowances/allowance.js';
export { revokePurchaseAllowanceContract, setPurchaseAllowanceContract } from './allowances/contracts.js';
export { allowanceSetWrite, getAllowance } from './allowances/repository.js';
export {
  getCurrentMultiplierContract,
  getMultiplierCostContract,
  getMultiplierCostForPlacementContract,
} from './contracts.js';
export {
  depositToPeriod,
  knownDeposit,
  MAX_DEPOSIT_LAMPORTS,
  MIN_DEPOSIT_LAMPORTS,
  periodFundView,
} from './deposits/deposit.js';
export type { InboundDeps } from './inbound.js';
export { type MyRewardsDeps, myRewards } from './me.js';
export { getMyRewardsContract } from './me-contracts.js';
export { DISTRIBUTION as distributionRule, MAX_ALLOWANCE_LAMPORTS } from './model.js';
export { poolDaysBetween } from './pool-days.js';
export { getGameRewardsPoolContract, getGameRewardsPoolHistoryContract } from './pools/contracts.js';
export { poolHistory } from './pools/history.js';
export type { PoolDeps } from './pools/pool.js';
export { gameRewardsPool } from './pools/pool.js';
export { priceFromConfig } from './price.js';
export { purchaseMultiplierContract } from './purchases/contracts.js';
export { activeMultiplierBps, applyMultiplier, multiplierSlotKey } from './purchases/multiplier.js';
export { purchaseMultiplier } from './purchases/purchase.js';
export type { QuoteDeps } from './purchases/quotes.js';
export { costForPlacement, currentMultiplier, multiplierCost } from './purchases/quotes.js';
export type { RewardsDeps } from './purchases/transfer.js';
export { allocateDay, byRank } from './settlement/allocation.js';
export {
  getDayStatementContract,
  getDayStatementLineContract,
  getPrizeStatementContract,
  getPrizeStatementLineContract,
  listStatementsContract,
} from './settlement/contracts.js';
export { boardMayChange, moveCarry, redirectPayouts } from './settlement/merge.js';
export {
  type PeriodStandings,
  type PrizeDeps,
  type PrizeInput,
  prizeRunOf,
  settlePrizeRun,
} from './settlement/prizes.js';
export { parkPayout, processSettlementBatch, sendSettlementMessages } from './settlement/queue.js';
export { payoutRecords, putPlayerChunks, readPlayers } from './settlement/repository.js';
export { dueDays, type PeriodCloseMessage, scheduleSettlements } from './settlement/schedule.js';
export { type SettlementDeps, settleGameDay } from './settlement/settle.js';
export { dayStatement, statementItems, statementLeaf, statementRoot } from './settlement/statement.js';
export { dayRun, dayRunLine, listStatements, prizeRun, prizeRunLine } from './settlement/statements.js';

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
  listStatementsContract,
  getDayStatementContract,
  getDayStatementLineContract,
  getPrizeStatementContract,
  getPrizeStatementLineContract,
];
