// Public surface of the tournaments domain: scheduled boards with periods, entrants and prize tables.

import type { Contract } from '../core/contract.js';
import {
  cancelTournamentContract,
  createTournamentContract,
  depositTournamentFundsContract,
  getTournamentBoardContract,
  getTournamentContract,
  getTournamentPeriodResultsContract,
  joinTournamentContract,
  listMyTournamentEntriesContract,
  listTournamentPeriodsContract,
  listTournamentsContract,
  updateTournamentContract,
} from './contracts.js';

export {
  type CloseOutcome,
  closePeriod,
  duePeriodCloses,
  periodStandings,
  prizeInputOf,
  REQUEUE_SECONDS,
  scheduleTournamentCloses,
} from './close.js';
export {
  cancelTournamentContract,
  createTournamentContract,
  depositTournamentFundsContract,
  getTournamentBoardContract,
  getTournamentContract,
  getTournamentPeriodResultsContract,
  joinTournamentContract,
  listMyTournamentEntriesContract,
  listTournamentPeriodsContract,
  listTournamentsContract,
  updateTournamentContract,
} from './contracts.js';
export { type DepositBody, depositToTournament } from './funding.js';
export { MAX_LIVE_TOURNAMENTS_PER_GAME, type Tournament } from './model.js';
export { nextPeriod, type Period, periodAt, type Schedule, scheduleProblems } from './schedule.js';
export {
  cancelTournament,
  createTournament,
  joinTournament,
  listGameTournaments,
  listPeriods,
  myEntries,
  periodResults,
  prizeProblems,
  readTournament,
  runningPeriods,
  tournamentBoard,
  updateTournament,
} from './service.js';

/** The domain's operations in the public API, in the order of the OpenAPI document (lib/api/catalogue.ts). */
export const contracts: readonly Contract[] = [
  createTournamentContract,
  updateTournamentContract,
  cancelTournamentContract,
  depositTournamentFundsContract,
  listTournamentsContract,
  getTournamentContract,
  listTournamentPeriodsContract,
  getTournamentBoardContract,
  getTournamentPeriodResultsContract,
  joinTournamentContract,
  listMyTournamentEntriesContract,
];
