// Public surface of the settlement domain: code outside lib/settlement imports it from here only.
export { type Allocation, type AllocationInput, allocateDay, byRank } from './allocation.js';
export { boardMayChange, moveCarry, redirectPayouts } from './merge.js';
export type { FrozenPlayer, PayoutLine, Settlement } from './model.js';
export { MAX_LINE_FAILURES } from './payout.js';
export { payoutsOf, recentSettlements } from './queries.js';
export { parkPayout, processSettlementBatch, sendSettlementMessages } from './queue.js';
export { putPlayerChunks, readPlayers } from './repository.js';
export {
  dueDays,
  gamesWithPlayers,
  type ScheduleDeps,
  type SettlementMessage,
  scheduleSettlements,
} from './schedule.js';
export {
  PayoutsOutstanding,
  type SettleCoinEmission,
  type SettlementDeps,
  type SettleOptions,
  type SettleOutcome,
  settleGameDay,
  settlesAt,
} from './settle.js';
