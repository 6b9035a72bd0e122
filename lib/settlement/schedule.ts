// The schedule's fan-out (docs/settlement.md): EventBridge runs scheduleSettlements hourly; it picks the UTC days
// whose settlement delay has passed (the last two, so a missed run is caught up), finds the games with players on
// each, and queues one message per (game, day) for settleGameDays (SQS, with a DLQ). A game whose coin is still
// being emitted is queued on every due day, players or not: its emission must reach its last day for the coin to
// end. Queueing a settled day again is harmless: settleGameDay replays it.
import * as z from 'zod/mini';
import { logger } from '../core/logger.js';
import { countMetric, countMetricBy } from '../core/metrics.js';
import { getGame, listGameIds } from '../games/index.js';
import { dayBoard } from '../play/index.js';
import { getSettlement } from './repository.js';
import { settlesAt } from './settle.js';

/**
 * A due (game, day) still unsettled this long after its settlement time is stuck, not slow: the schedule counts
 * it in `SettlementsOverdue`, whose alarm pages (docs/operations.md). A settlement takes minutes; the queue retries
 * within the hour.
 */
export const OVERDUE_HOURS = 6;

/** One (game, day) to settle: the queue's message body. */
export const settlementMessage = z.object({
  gameId: z.string().check(z.minLength(1)),
  day: z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/)),
});
export type SettlementMessage = z.infer<typeof settlementMessage>;

export interface ScheduleDeps {
  listGameIds: () => Promise<string[]>;
  hasPlayers: (gameId: string, day: string) => Promise<boolean>;
  /** Whether the game's coin is still `active` (emitting): one GetItem. */
  coinActive: (gameId: string) => Promise<boolean>;
  send: (bodies: readonly string[]) => Promise<number>;
  now: () => Date;
  /** Whether (game, day) is settled: one GetItem, asked only of days past OVERDUE_HOURS. */
  isSettled: (gameId: string, day: string) => Promise<boolean>;
}

/** Whether a day's settlement finished (its intent is `settled`). */
export const isSettled = async (gameId: string, day: string): Promise<boolean> =>
  (await getSettlement(gameId, day))?.status === 'settled';

/** Whether anyone has counted points on a game's board of the day (one GetItem when nobody ever had). */
export const hasPlayers = (gameId: string, day: string): Promise<boolean> => dayBoard.hasPlayers(gameId, day);

/** Whether a game's coin is still being emitted (its last emission day has not settled). */
export const coinActive = async (gameId: string): Promise<boolean> =>
  (await getGame(gameId))?.coin?.status === 'active';

const dayBefore = (day: string, n: number) =>
  new Date(Date.parse(`${day}T00:00:00.000Z`) - n * 86_400_000).toISOString().slice(0, 10);

/** The games with players on a UTC day (one projected Scan, then `hasPlayers` per game). */
export const gamesWithPlayers = async (day: string): Promise<string[]> => {
  const ids = await listGameIds();
  const active = await Promise.all(ids.map(async (id) => ((await hasPlayers(id, day)) ? id : undefined)));
  return active.filter((id): id is string => id !== undefined);
};

/** The UTC days due now: the last two days whose settlement delay has passed. */
export const dueDays = (now: Date): string[] => {
  const today = now.toISOString().slice(0, 10);
  return [1, 2, 3]
    .map((n) => dayBefore(today, n))
    .filter((day) => settlesAt(day) <= now)
    .slice(0, 2);
};

/** Queue one settlement per game with players on each due day; returns how many were queued. */
export const scheduleSettlements = async (
  deps: Partial<ScheduleDeps> & Pick<ScheduleDeps, 'send'>,
): Promise<{ queued: number; days: string[] }> => {
  const {
    now = () => new Date(),
    hasPlayers: active = hasPlayers,
    coinActive: emitting = coinActive,
    isSettled: settled = isSettled,
  } = deps;
  countMetricBy('ScheduleRuns', { schedule: 'settlements' });
  const at = now();
  const days = dueDays(at);
  const gameIds = await (deps.listGameIds ?? listGameIds)();
  const bodies: string[] = [];
  const emittingGames = new Set<string>();
  for (const gameId of gameIds) if (await emitting(gameId)) emittingGames.add(gameId);
  for (const day of days)
    for (const gameId of gameIds)
      if (emittingGames.has(gameId) || (await active(gameId, day)))
        bodies.push(JSON.stringify({ gameId, day } satisfies SettlementMessage));
  const queued = await deps.send(bodies);
  const overdue = await countOverdue(bodies, at, settled);
  countMetric('SettlementsOverdue', overdue);
  logger.info('settlements queued', { queued, days, overdue });
  return { queued, days };
};

/** How many of the queued (game, day) are past OVERDUE_HOURS after their settlement time and still unsettled. */
const countOverdue = async (
  bodies: readonly string[],
  at: Date,
  settled: (gameId: string, day: string) => Promise<boolean>,
): Promise<number> => {
  const late = bodies
    .map((body) => JSON.parse(body) as SettlementMessage)
    .filter(({ day }) => at.getTime() - settlesAt(day).getTime() >= OVERDUE_HOURS * 3_600_000);
  const unsettled = await Promise.all(late.map(async ({ gameId, day }) => !(await settled(gameId, day))));
  return unsettled.filter(Boolean).length;
};
