// A tournament as stored and as the API shows it, its limits and its keys in the play table.
import type { Period, Recurrence, Schedule } from './schedule.js';

/** Tournaments of a game that are scheduled (not cancelled, not over): each is read by every save of the game. */
export const MAX_LIVE_TOURNAMENTS_PER_GAME = 10;
/** A `best` tournament keeps each attempt's points on the entry: its attempts are bounded. */
export const MAX_BEST_ATTEMPTS = 50;
/** Ranks a prize table pays at most: each paid rank is one transfer, recorded with the period's prize run. */
export const MAX_PRIZE_RANKS = 100;
/** The most of the game's distributable rewards pool one period's prizes may take (basis points). */
export const MAX_PRIZE_POOL_BPS = 5_000;
export const DEFAULT_PAYOUT_DELAY_SECONDS = 3_600;
export const MIN_PAYOUT_DELAY_SECONDS = 60;
export const MAX_PAYOUT_DELAY_SECONDS = 604_800;
export const MAX_METADATA_BYTES = 4_096;
export const DEFAULT_RETENTION_DAYS = 90;
export const MIN_RETENTION_DAYS = 30;
export const MAX_RETENTION_DAYS = 3_650;

export type Scoring = 'sum' | 'best';

export interface PrizeRange {
  fromRank: number;
  toRank: number;
  /** Basis points of the period's prize pool, for each rank of the range. */
  bps: number;
}

export interface Tournament extends Schedule {
  tournamentId: string;
  gameId: string;
  title: string;
  description: string | null;
  scoring: Scoring;
  joinRequired: boolean;
  maxEntrants: number | null;
  maxAttempts: number | null;
  tieRule: 'earliest';
  metadata: Record<string, unknown> | null;
  prizes: PrizeRange[];
  /** How each period's prize pool is funded: a share of the game's rewards pool (null: no prizes). */
  prizePool: { rewardsPoolBps: number } | null;
  /** Seconds after a period ends before its board is frozen and its prizes paid (invalidation happens before). */
  payoutDelaySeconds: number;
  retentionDays: number;
  status: 'scheduled' | 'cancelled';
  createdBy: string;
  createdAt: string;
  updatedAt: string;
}

export type { Period, Recurrence, Schedule };

/** What a save needs of a period running now: the port the play domain scores through. */
export interface RunningPeriod {
  tournamentId: string;
  period: string;
  endsAt: string;
  scoring: Scoring;
  joinRequired: boolean;
  maxEntrants: number | null;
  maxAttempts: number | null;
  /** When the period's board is frozen and its prizes paid (its end plus the payout delay). */
  closesAt: string;
}

/**
 * PlayTable keys of the tournaments domain:
 * - a game's tournaments:   pk=TOURNAMENT#<gameId>               sk=<tournamentId>
 * - a period's record:      pk=TPERIOD#<gameId>#<tournamentId>   sk=<periodId>  (entrants; created by the first),
 *   in the sparse KEYS_ONLY index byPeriodClose (closeDue = CLOSE#<shard>, closeAt) until its run closes it
 * - a player's entry:       pk=TENTRY#<gameId>#<arcId>           sk=<tournamentId>#<periodId>, on the period's
 *   board through the byDayRank index (play's rank index, board kind `tournament`).
 */
export const tournamentKeys = {
  tournament: (gameId: string, tournamentId: string) => ({ pk: `TOURNAMENT#${gameId}`, sk: tournamentId }),
  ofGame: (gameId: string) => `TOURNAMENT#${gameId}`,
  period: (gameId: string, tournamentId: string, periodId: string) => ({
    pk: `TPERIOD#${gameId}#${tournamentId}`,
    sk: periodId,
  }),
  periodsOf: (gameId: string, tournamentId: string) => `TPERIOD#${gameId}#${tournamentId}`,
  entry: (gameId: string, arcId: string, tournamentId: string, periodId: string) => ({
    pk: `TENTRY#${gameId}#${arcId}`,
    sk: `${tournamentId}#${periodId}`,
  }),
  entriesOf: (gameId: string, arcId: string) => `TENTRY#${gameId}#${arcId}`,
};
