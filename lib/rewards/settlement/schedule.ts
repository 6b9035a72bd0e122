// The schedule's fan-out (docs/settlement.md): EventBridge runs scheduleSettlements hourly; it picks the UTC days
// whose settlement delay has passed (the last two, so a missed run is caught up), finds the games with activity
// on each from the play domain's index of boards that had a score that day (a Query, never a scan of the games),
// adds the games whose coin is still emitting (their days settle players or not: the emission must reach its
// last day for the coin to end), drops the (game, day) already settled (one BatchGetItem per 100, several at a
// time) and queues one message per remaining (game, day) for settleGameDays (SQS, with a DLQ). Queueing a day
// that settles meanwhile is harmless: settleGameDay replays it.
import * as z from 'zod/mini';
import { mapConcurrent } from '../../core/concurrency.js';
import { logger } from '../../core/logger.js';
import { countMetric, countMetricBy } from '../../core/metrics.js';
import { emittingGameIds } from '../../games/index.js';
import { settledAmong } from './repository.js';
import { settlesAt } from './settle.js';

/**
 * A due (game, day) still unsettled this long after its settlement time is stuck, not slow: the schedule counts
 * it in `SettlementsOverdue`, whose alarm pages (docs/operations.md). A settlement takes minutes; the queue retries
 * within the hour.
 */
export const OVERDUE_HOURS = 6;

/** BatchGetItem requests of settled checks in flight at once (100 (game, day) each). */
export const CHECK_CONCURRENCY = 16;

/** One (game, day) to settle: the queue's message body. */
const dayMessage = z.object({
  gameId: z.string().check(z.minLength(1)),
  day: z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/)),
});
export type SettlementMessage = z.infer<typeof dayMessage>;

/** One tournament period to close and pay (the tournaments domain's schedule queues it on the same queue). */
const periodMessage = z.object({
  gameId: z.string().check(z.minLength(1)),
  tournamentId: z.string().check(z.minLength(1)),
  periodId: z.string().check(z.minLength(1)),
});
export type PeriodCloseMessage = z.infer<typeof periodMessage>;

/** The settlement queue's messages: a (game, day), or a tournament period's prize run. */
export const settlementMessage = z.union([periodMessage, dayMessage]);

/**
 * Port: the games whose board of a UTC day had a score (the play domain's `gamesActiveOn`, wired by the function
 * file: play imports rewards, so rewards does not import play).
 */
export type GamesActiveOn = (day: string) => Promise<string[]>;

export interface ScheduleDeps {
  gamesActiveOn: GamesActiveOn;
  send: (bodies: readonly string[]) => Promise<number>;
  now: () => Date;
  /** The games whose coin is still emitting (default: the games domain's index of them). */
  emittingGames: () => Promise<string[]>;
  /** Which of up to 100 (game, day) are settled, as `gameId|day` (default: one BatchGetItem). */
  settledAmong: (pairs: ReadonlyArray<{ gameId: string; day: string }>) => Promise<Set<string>>;
}

const dayBefore = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00.000Z`) - n * 86_400_000).toISOString().slice(0, 10);

/** The UTC days due now: the last two days whose settlement delay has passed. */
export const dueDays = (now: Date): string[] => {
  const today = now.toISOString().slice(0, 10);
  return [1, 2, 3]
    .map((n) => dayBefore(today, n))
    .filter((day) => settlesAt(day) <= now)
    .slice(0, 2);
};

/** The (game, day) of the due days not settled yet: the games with activity on each, and the emitting ones. */
const unsettledCandidates = async (
  days: readonly string[],
  deps: Pick<ScheduleDeps, 'gamesActiveOn' | 'emittingGames' | 'settledAmong'>,
): Promise<Array<{ gameId: string; day: string }>> => {
  const [emitting, ...active] = await Promise.all([
    deps.emittingGames(),
    ...days.map((day) => deps.gamesActiveOn(day)),
  ]);
  const candidates = days.flatMap((day, i) =>
    [...new Set([...(active[i] ?? []), ...emitting])].map((gameId) => ({ gameId, day })),
  );
  const batches = Array.from({ length: Math.ceil(candidates.length / 100) }, (_, i) =>
    candidates.slice(i * 100, i * 100 + 100),
  );
  const settled = await mapConcurrent(batches, CHECK_CONCURRENCY, (batch) => deps.settledAmong(batch));
  return batches.flatMap((batch, i) =>
    batch.filter(({ gameId, day }) => !settled[i]?.has(`${gameId}|${day}`)),
  );
};

/** Queue one settlement per unsettled (game, day) with activity or an emitting coin; returns how many were queued. */
export const scheduleSettlements = async (
  deps: Partial<ScheduleDeps> & Pick<ScheduleDeps, 'send' | 'gamesActiveOn'>,
): Promise<{ queued: number; days: string[] }> => {
  const {
    now = () => new Date(),
    emittingGames = emittingGameIds,
    settledAmong: settled = settledAmong,
  } = deps;
  countMetricBy('ScheduleRuns', { schedule: 'settlements' });
  const at = now();
  const days = dueDays(at);
  const due = await unsettledCandidates(days, {
    gamesActiveOn: deps.gamesActiveOn,
    emittingGames,
    settledAmong: settled,
  });
  const queued = await deps.send(
    due.map(({ gameId, day }) => JSON.stringify({ gameId, day } satisfies SettlementMessage)),
  );
  // Past OVERDUE_HOURS after its settlement time and still unsettled: stuck.
  const overdue = due.filter(
    ({ day }) => at.getTime() - settlesAt(day).getTime() >= OVERDUE_HOURS * 3_600_000,
  );
  countMetric('SettlementsOverdue', overdue.length);
  logger.info('settlements queued', { queued, days, overdue: overdue.length });
  return { queued, days };
};
