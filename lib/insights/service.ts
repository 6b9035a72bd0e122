// GET /games/insights/{gameId}: a game's day counters (./counters.ts) and its pool's day books (the sales and
// payouts, read through the `PoolDays` port) as one row per day, and the retention cohorts worked out from the
// counters: cohort D's players are D's new players, its day-N returns the `backN` counter of day D + N.
import type { AuthContext } from '../core/auth.js';
import { errors } from '../core/errors.js';
import { utcDay } from '../core/time.js';
import { requireOwnedGame } from '../games/index.js';
import { DEFAULT_RANGE_DAYS, type GameInsights, type InsightsDay, MAX_RANGE_DAYS } from './contracts.js';
import { daysBetween, RETENTION_OFFSETS } from './keys.js';
import { type DayCounters, dayCounters, zeroCounters } from './repository.js';

/** A pool's books of one UTC day, as the insights read them (rewards' pool days). */
export interface PoolDayFigures {
  day: string;
  purchases: number;
  salesLamports: bigint;
  salesUsdCents: number;
  paidLamports: bigint;
  paidUsdCents: number;
  payouts: number;
  playerPayouts: number;
}

/** The pool's books of a game's days between two UTC days (both included); a day nothing moved on is absent. */
export type PoolDays = (gameId: string, from: string, to: string) => Promise<PoolDayFigures[]>;

export interface InsightsDeps {
  poolDays: PoolDays;
  now?: () => Date;
}

const DAY_MS = 86_400_000;
export const shiftDay = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00.000Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** The range asked, or its defaults (docs/insights.md): 400 VALIDATION_ERROR when reversed or too long. */
export const insightsRange = (
  query: { from?: string | undefined; to?: string | undefined },
  today: string,
) => {
  const to = query.to ?? today;
  const from = query.from ?? shiftDay(to, -(DEFAULT_RANGE_DAYS - 1));
  const span = daysBetween(from, to) + 1;
  if (span < 1)
    throw errors.validation('Invalid range', [{ path: 'to', message: 'must not be before from' }]);
  if (span > MAX_RANGE_DAYS)
    throw errors.validation('Invalid range', [
      {
        path: query.from === undefined ? 'to' : 'from',
        message: `the range is at most ${MAX_RANGE_DAYS} days`,
      },
    ]);
  return { from, to, days: Array.from({ length: span }, (_, i) => shiftDay(from, i)) };
};

const row = (day: string, c: DayCounters, pool: PoolDayFigures | undefined): InsightsDay => ({
  day,
  activePlayers: c.activePlayers,
  newPlayers: c.newPlayers,
  sessions: { backend: c.backendSessions, sdk: c.sdkSessions },
  points: c.points,
  flaggedSessions: c.flaggedSessions,
  invalidatedSessions: c.invalidatedSessions,
  sales: {
    count: pool?.purchases ?? 0,
    lamports: String(pool?.salesLamports ?? 0n),
    usdCents: pool?.salesUsdCents ?? 0,
  },
  payouts: {
    lamports: String(pool?.paidLamports ?? 0n),
    usdCents: pool?.paidUsdCents ?? 0,
    players: pool?.playerPayouts ?? 0,
  },
  tournamentEntrants: c.tournamentEntrants,
  webhookFailures: c.webhookFailures,
});

const BACK = { 1: 'back1', 7: 'back7', 30: 'back30' } as const;

/** GET /games/insights/{gameId}: the game's creator or owner (404 / 403 otherwise), oldest day first. */
export const gameInsights = async (
  auth: AuthContext,
  gameId: string,
  query: { from?: string | undefined; to?: string | undefined },
  deps: InsightsDeps,
): Promise<GameInsights> => {
  const game = await requireOwnedGame(auth, gameId);
  const today = utcDay(deps.now?.() ?? new Date());
  const range = insightsRange(query, today);
  // The cohorts' returns are counted on the days after them: 30 days past the range's end.
  const last = RETENTION_OFFSETS[RETENTION_OFFSETS.length - 1] ?? 0;
  const [counters, pool] = await Promise.all([
    dayCounters(game.id, range.from, shiftDay(range.to, last)),
    deps.poolDays(game.id, range.from, range.to),
  ]);
  const poolByDay = new Map(pool.map((p) => [p.day, p]));
  const of = (day: string) => counters.get(day) ?? zeroCounters();
  const back = (cohort: string, n: 1 | 7 | 30) => {
    const day = shiftDay(cohort, n);
    return day > today ? null : of(day)[BACK[n]];
  };
  return {
    gameId: game.id,
    from: range.from,
    to: range.to,
    days: range.days.map((day) => row(day, of(day), poolByDay.get(day))),
    retention: range.days.flatMap((cohort) => {
      const players = of(cohort).newPlayers;
      return players > 0
        ? [{ cohort, players, day1: back(cohort, 1), day7: back(cohort, 7), day30: back(cohort, 30) }]
        : [];
    }),
  };
};
