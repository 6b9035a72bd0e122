// A tournament as stored and as the API shows it, its limits and its keys in the play table.
import type { Period, Recurrence, Schedule } from './schedule.js';

/** Tournaments of a game that are scheduled (not cancelled, not over): each is read by every save of the game. */
export const MAX_LIVE_TOURNAMENTS_PER_GAME = 10;
/** A `best` tournament keeps each attempt's points on the entry: its attempts are bounded. */
export const MAX_BEST_ATTEMPTS = 50;
export const MAX_PRIZE_RANKS = 1_000;
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
}

/**
 * PlayTable keys of the tournaments domain:
 * - a game's tournaments:   pk=TOURNAMENT#<gameId>               sk=<tournamentId>
 * - a period's record:      pk=TPERIOD#<gameId>#<tournamentId>   sk=<periodId>  (entrants; created by the first)
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
