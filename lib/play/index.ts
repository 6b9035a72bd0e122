// Public surface of the play domain: code outside lib/play imports it from here only.
import type { Contract } from '../core/contract.js';
import {
  getLeaderboardContract,
  getMyRankContract,
  setMyDisplayNameContract,
  setPlayerDisplayNameContract,
} from './board-contracts.js';
import {
  batchSavePointsContract,
  getDevLeaderboardContract,
  getDevPointsContract,
  invalidateSessionsContract,
  listDevSessionsContract,
  listRiskySessionsContract,
} from './contracts.js';
import {
  commitContract,
  flushContract,
  getPlayerPointsContract,
  getSessionTokenContract,
  sessionStateContract,
} from './sdk-contracts.js';

export {
  boardEntrySchema,
  getLeaderboardContract,
  getMyRankContract,
  setMyDisplayNameContract,
  setPlayerDisplayNameContract,
} from './board-contracts.js';
export {
  batchSavePointsContract,
  getDevLeaderboardContract,
  getDevPointsContract,
  invalidateSessionsContract,
  listDevSessionsContract,
  listRiskySessionsContract,
} from './contracts.js';
export { dayBoard, gamesActiveOn } from './day-board.js';
export { type DayStanding, dayStandings, type StandingsCursor } from './day-standings.js';
export { DISPLAY_NAME_MAX, moderateDisplayName } from './display-name.js';
export { invalidateSessions } from './invalidate.js';
export { playKeys, utcDay } from './keys.js';
export {
  type DayMove,
  type GameFootprint,
  moveAllTimeRemainder,
  movePlayerDay,
  playerFootprint,
} from './merge.js';
export { myRank, playerLeaderboard, setMyName, setPlayerName } from './player-boards.js';
export { labelEntries } from './player-names.js';
export { devLeaderboard, devPoints, devSessions, riskySessions } from './queries.js';
export { around, playerRank } from './rank-around.js';
export * as rankIndex from './rank-index.js';
export * as rankReads from './rank-reads.js';
export {
  countRange,
  getItem,
  getItems,
  playTable,
  queryIndex,
  transact,
} from './repository.js';
export { batchSavePoints } from './save-points.js';
export { commit, flush, openSession, playerPoints, sessionState } from './sdk.js';
export {
  commitContract,
  flushContract,
  getPlayerPointsContract,
  getSessionTokenContract,
  sessionStateContract,
} from './sdk-contracts.js';
export { verifySessionToken } from './session-token.js';
export {
  CLOSE_SHARDS,
  entryRead,
  joinItems,
  periodBoard,
  periodRecordItem,
  type RunningPeriod,
  type RunningPeriods,
  sessionMark,
  tournamentPlayKeys,
} from './tournament-entries.js';

/** The domain's operations in the public API, in the order of the OpenAPI document (lib/api/catalogue.ts). */
export const contracts: readonly Contract[] = [
  batchSavePointsContract,
  getDevPointsContract,
  getDevLeaderboardContract,
  listDevSessionsContract,
  listRiskySessionsContract,
  invalidateSessionsContract,
  setPlayerDisplayNameContract,
  getSessionTokenContract,
  flushContract,
  commitContract,
  sessionStateContract,
  getPlayerPointsContract,
  getLeaderboardContract,
  getMyRankContract,
  setMyDisplayNameContract,
];
