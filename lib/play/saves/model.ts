// The vocabulary of a batch save: the entries a request brings, what each one did, and the typed writes a
// plan applies them with (no DynamoDB in sight: saves/writes.ts turns them into transaction items).
import type { InsightsAdds } from '../../insights/index.js';
import type { BoardMeta } from '../ranks/board.js';
import type { AddToEntry } from '../ranks/tournament-entries.js';
import type { RiskAssessment } from '../risk.js';

export interface SaveEntry {
  playerId: string;
  points: number;
  sessionId?: string | undefined;
  idempotencyKey?: string | undefined;
}

export type EntryStatus = 'accepted' | 'clipped' | 'rejected' | 'duplicate';
export type EntryReason =
  | 'max_score_per_session'
  | 'max_cumulative_points_per_day'
  | 'max_sessions_per_day'
  | 'session_closed';

export interface EntryResult {
  index: number;
  playerId: string;
  arcId: string;
  sessionId: string;
  requested: number;
  accepted: number;
  status: EntryStatus;
  reason: EntryReason | null;
}

/** An entry with its position in the request. */
export interface Indexed {
  index: number;
  entry: SaveEntry;
}

/** A total as read: its points and when it reached them (its place among ties on the board). */
export interface TotalRead {
  points: number;
  reachedAt: string;
  /** The shard its board entry is in (undefined: off the board). */
  shard?: number | undefined;
}

/**
 * Adds to a player's total of one UTC day (the daily board). Fails if, by the time it is written, the stored
 * points or sessions exceed the given bound (the cap minus what the write adds; null: not checked).
 */
export interface AddToDay {
  kind: 'addToDay';
  gameId: string;
  arcId: string;
  day: string;
  points: number;
  /** Sessions the plan opens on this day. */
  sessions: number;
  /** The total as read (undefined: none yet): the write moves it on the board, conditional on its points. */
  read?: TotalRead | undefined;
  /** The day board's meta as read (its height, width and players' estimate), updated by the write as needed. */
  meta: BoardMeta;
  requires: { pointsAtMost: number | null; sessionsAtMost: number | null };
  /**
   * The player's first counted activity of the day (the total read without `played`): the write marks it, on
   * condition that no other write did meanwhile, and the day's insights count an active player once.
   */
  markPlayed?: boolean | undefined;
}

/**
 * Adds to a player's all-time total (the all-time board). The day totals hold the caps; the only condition is
 * that its points are still those read, which its move on the board starts from.
 */
export interface AddToAllTime {
  kind: 'addToAllTime';
  gameId: string;
  arcId: string;
  points: number;
  read?: TotalRead | undefined;
  /** The all-time board's meta as read. */
  meta: BoardMeta;
  /**
   * The day the player was first seen in the game, set by this write (on condition that none is set yet): the
   * insights' new players and retention cohorts (lib/insights).
   */
  firstDay?: string | undefined;
}

/** What the plan ADDs to the game's figures of one UTC day (lib/insights): merged per transaction. */
export interface AddToInsights {
  kind: 'addToInsights';
  gameId: string;
  day: string;
  adds: InsightsAdds;
}

/** A session's increments and its risk after them. */
export interface SessionChange {
  gameId: string;
  arcId: string;
  sessionId: string;
  points: number;
  saves: number;
  capHits: number;
  risk: RiskAssessment;
  /** Points counted into tournament periods, by the period's mark (`sessionMark`): ADDed to the session. */
  marks?: Array<[string, number]> | undefined;
}

/** Opens a backend session with its first saves; fails if a session of that id exists by then. */
export interface OpenSession extends SessionChange {
  kind: 'openSession';
  day: string;
  requires: { absent: true };
}

/**
 * Adds saves to an existing session; fails unless it is still active, the player's, and its stored points are
 * at most the bound (maxScorePerSession minus what the write adds; null: not checked).
 */
export interface AddToSession extends SessionChange {
  kind: 'addToSession';
  requires: { status: 'active'; arcId: string; pointsAtMost: number | null };
}

/** Keeps an idempotency key's result for a day; fails if the key was recorded by then (a concurrent request). */
export interface RecordIdempotency {
  kind: 'recordIdempotency';
  gameId: string;
  key: string;
  accepted: number;
  status: EntryStatus;
  /** Unix seconds (the table's TTL attribute). */
  expiresAt: number;
  requires: { absent: true };
}

/**
 * Writes nothing; fails if a session the plan found absent exists by then. An entry refused by
 * maxSessionsPerDay relies on two items read together: the day total's session count, and its own session not
 * being one of them. A batched read is not isolated from a concurrent save's transaction, so it can see the
 * count that includes a session and miss the session itself; the check makes such a refusal a lost race
 * (read again) instead of a wrong answer.
 */
export interface SessionStillAbsent {
  kind: 'sessionStillAbsent';
  gameId: string;
  sessionId: string;
  requires: { absent: true };
}

/** One write of a plan. A plan's writes apply all or nothing. */
export type PlanWrite =
  | AddToDay
  | AddToAllTime
  | OpenSession
  | AddToSession
  | RecordIdempotency
  | SessionStillAbsent
  | AddToEntry
  | AddToInsights;

export interface PlayerPlan {
  results: EntryResult[];
  /**
   * In this order: day totals, the all-time total, sessions, idempotency records, sessions refused, tournament
   * entries.
   */
  writes: PlanWrite[];
  /** The points the plan adds to the player's totals. */
  total: number;
  /** The instant it was made at (ISO): the writes' timestamps. */
  at: string;
}
