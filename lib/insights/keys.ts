// The keys of a game's day counters and what they count (./counters.ts builds their writes, ./repository.ts reads
// them): apart from both so that the read's function bundles no write, and the writers' no read.
import { settings } from '../core/config.js';

/** The counters of a game's day, by attribute name. */
export const COUNTERS = [
  'activePlayers',
  'newPlayers',
  /** Players first seen N days before this day who played on it (cohort day + N's row holds it). */
  'back1',
  'back7',
  'back30',
  'backendSessions',
  'sdkSessions',
  'points',
  'flaggedSessions',
  'invalidatedSessions',
  'tournamentEntrants',
  'webhookFailures',
] as const;
export type Counter = (typeof COUNTERS)[number];
export type InsightsAdds = Partial<Record<Counter, number>>;

/** The days after the first that retention reports: a return on one of them ADDs `back<N>` on that day. */
export const RETENTION_OFFSETS = [1, 7, 30] as const;

/**
 * Copies of each day's item: a writer ADDs to one of them and a read sums them, so that concurrent transactions
 * (a batch save's run in parallel, each in a copy of its own) seldom write the same item (DynamoDB would cancel
 * one of them: TransactionConflict).
 */
export const INSIGHTS_COPIES = 8;

const SK_PREFIX = 'DAY#';

/** The table the items live in (the play table: most of their writers' transactions are there). */
export const insightsTable = () => settings().PLAY_TABLE;

export const insightsKeys = {
  partition: (gameId: string, copy: number) => `INSIGHTS#${gameId}#${copy}`,
  day: (gameId: string, day: string, copy: number) => ({
    pk: insightsKeys.partition(gameId, copy),
    sk: `${SK_PREFIX}${day}`,
  }),
  SK_PREFIX,
};

const DAY_MS = 86_400_000;
/** Whole days from `from` to `to` (UTC days, yyyy-mm-dd). */
export const daysBetween = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00.000Z`) - Date.parse(`${from}T00:00:00.000Z`)) / DAY_MS);
