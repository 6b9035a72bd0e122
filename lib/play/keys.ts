import type { RiskAssessment } from './risk.js';

/**
 * PlayTable keys and index attributes. Access patterns:
 * - a session:                        pk=SESSION#<gameId>#<sessionId>  sk=SESSION
 * - a player's day total in a game:   pk=TOTAL#<gameId>#<arcId>        sk=DAY#<yyyy-mm-dd>
 * - a player's all-time total:        pk=TOTAL#<gameId>#<arcId>        sk=ALL
 * - idempotency record of an entry:   pk=IDEM#<gameId>#<key>           sk=IDEM  (expires after a day)
 * - a player's earning budget:        pk=BUDGET#<gameId>#<arcId>       sk=BUDGET (protocol/budget.ts: the token bucket
 *   every SDK session of the player draws from)
 * - daily leaderboard:                GSI byDayRank       (rankDay = <gameId>#<day>#<shard>, rankKey S)
 * - all-time leaderboard:             GSI byAllTimeRank   (rankAll = <gameId>#<shard>, rankKey S)
 * - a board's score-tree counters:    pk=RANK#<board>#<level>#<node>#<copy>  sk=RANK
 *   (ranks/board.ts: the shards, the order key and the tree; docs/leaderboards.md)
 * - a game's sessions, newest first:  GSI byGameSessions  (sessionGame = <gameId>, sessionSort = <createdAt>#<id>)
 * - a game's risky sessions:          GSI byRiskySessions (riskyGame = <gameId> only when risk > 0.5, riskScore N)
 * - the games with activity on a day: GSI byActiveDay (activeDay = <day>#<shard>, activeGame = <gameId>; KEYS_ONLY),
 *   on a day board's height item only (ranks/writes.ts `heightItem`): written when the board's first score
 *   creates it; a later raise rewrites the same values, which leaves the index untouched. Sharded by game so that
 *   the first scores of a new day, every game's at once, spread over ACTIVITY_SHARDS partitions.
 * Leaderboard ties (same points) are broken by who reached the score first, then by Arc ID (the rank key's order).
 */
export const playKeys = {
  session: (gameId: string, sessionId: string) => ({ pk: `SESSION#${gameId}#${sessionId}`, sk: 'SESSION' }),
  day: (gameId: string, arcId: string, day: string) => ({ pk: `TOTAL#${gameId}#${arcId}`, sk: `DAY#${day}` }),
  allTime: (gameId: string, arcId: string) => ({ pk: `TOTAL#${gameId}#${arcId}`, sk: 'ALL' }),
  idempotency: (gameId: string, key: string) => ({ pk: `IDEM#${gameId}#${key}`, sk: 'IDEM' }),
  budget: (gameId: string, arcId: string) => ({ pk: `BUDGET#${gameId}#${arcId}`, sk: 'BUDGET' }),
  boardDay: (gameId: string, day: string) => `${gameId}#${day}`,
};

export { utcDay } from '../core/time.js';

/** Entries without a sessionId count towards the player's default backend session of the UTC day. */
export const defaultSessionId = (day: string, arcId: string) => `backend-${day}-${arcId}`;

export const RISKY_THRESHOLD = 0.5;

/** Partitions of a day in the byActiveDay index. */
export const ACTIVITY_SHARDS = 16;

/** A day board's entry in the index of games with activity (byActiveDay). */
export interface DayActivity {
  activeDay: string;
  activeGame: string;
}

/**
 * The index attributes of sessions (the GSIs above), for every writer to take from here so that no item misses
 * its index or keeps a stale entry (a total's board attributes come with its move: ranks/writes.ts). `undefined` means removed: a session leaves the sparse risky index
 * when its score drops.
 */
export const playIndexes = {
  /** The entry of a game's day in the index of games with activity. */
  activity: (gameId: string, day: string, shard: number): DayActivity => ({
    activeDay: `${day}#${shard}`,
    activeGame: gameId,
  }),
  session: (gameId: string, sessionId: string, createdAt: string) => ({
    sessionGame: gameId,
    sessionSort: `${createdAt}#${sessionId}`,
  }),
  /** A session's risk, with the sparse index entry that follows from it. */
  risk: (gameId: string, risk: RiskAssessment) => ({
    riskScore: risk.score,
    riskReasons: risk.reasons,
    riskyGame: risk.score > RISKY_THRESHOLD ? gameId : undefined,
  }),
};
