// Public surface of the play domain: code outside lib/play imports it from here only.
import type { Contract } from '../core/contract.js';
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
} from './protocol/contracts.js';
import {
  getLeaderboardContract,
  getMyRankContract,
  setMyDisplayNameContract,
  setPlayerDisplayNameContract,
} from './ranks/contracts.js';

export {
  batchSavePointsContract,
  getDevLeaderboardContract,
  getDevPointsContract,
  invalidateSessionsContract,
  listDevSessionsContract,
  listRiskySessionsContract,
} from './contracts.js';
export { playKeys } from './keys.js';
export {
  type DayMove,
  type GameFootprint,
  moveAllTimeRemainder,
  movePlayerDay,
  playerFootprint,
} from './merge.js';
export { labelEntries } from './player-names.js';
export {
  commitContract,
  flushContract,
  getPlayerPointsContract,
  getSessionTokenContract,
  sessionStateContract,
} from './protocol/contracts.js';
export { invalidateSessions } from './protocol/invalidate.js';
export { commit, flush, openSession, playerPoints, sessionState } from './protocol/state.js';
export { verifySessionToken } from './protocol/token.js';
export { devLeaderboard, devPoints, devSessions, riskySessions } from './queries.js';
export { playerRank } from './ranks/around.js';
export * as rankIndex from './ranks/board.js';
export {
  getLeaderboardContract,
  getMyRankContract,
  setMyDisplayNameContract,
  setPlayerDisplayNameContract,
} from './ranks/contracts.js';
export { dayBoard, gamesActiveOn } from './ranks/day-board.js';
export { dayStandings } from './ranks/day-standings.js';
export { myRank, playerLeaderboard, setMyName, setPlayerName } from './ranks/player-boards.js';
export * as rankReads from './ranks/reads.js';
export {
  CLOSE_SHARDS,
  joinItems,
  periodBoard,
  periodRecordItem,
  type RunningPeriod,
  tournamentPlayKeys,
} from './ranks/tournament-entries.js';
export {
  countRange,
  getItem,
  getItems,
  playTable,
  queryIndex,
  transact,
} from './repository.js';
export { batchSavePoints } from './saves/save.js';

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
