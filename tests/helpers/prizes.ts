// A tournament period with prizes, seeded against the local stack and chain: a game whose rewards pool holds a
// real multiplier purchase, a one-hour tournament on a random future day (the stack's own schedule, on the real
// clock, never finds it due) paying ranks 1–3 from half of the pool, and players scoring into it.
import { sideEffects as settleDeps } from '../../functions/settlement/settle-game-days.js';
import { batchSavePoints } from '../../lib/play/saves/save.js';
import { prizeRunOf, type SettlementDeps } from '../../lib/rewards/index.js';
import type { PrizeRun } from '../../lib/rewards/settlement/model.js';
import { closePeriod, createTournament, runningPeriods } from '../../lib/tournaments/index.js';
import { localDirectory } from '../../lib/user/directory.js';
import { randomDay, type SeededDay, seedDay } from './settlement.js';
import type { Receiver } from './webhooks.js';
import { subscribeReceiver } from './webhooks.js';

export const TABLE = [
  { fromRank: 1, toRank: 1, bps: 5_000 },
  { fromRank: 2, toRank: 3, bps: 2_000 },
];
export const POOL_BPS = 5_000;
export const DELAY = 60;

export const iso = (d: Date) => `${d.toISOString().slice(0, 19)}Z`;
/**
 * A whole hour on a random future day: the stack's own schedule (real clock) never finds these periods due, so
 * only the test closes them.
 */
const futureHour = () =>
  new Date(Date.UTC(2031, 0, 1, 1) + Math.floor(Math.random() * 1_500) * 86_400_000 + 3_600_000);

export interface Fixture {
  seeded: SeededDay;
  devAuth: { scheme: 'hmac'; userId: string; apiKey: string };
  tournamentId: string;
  periodId: string;
  endsAt: Date;
  closesAt: Date;
  message: { gameId: string; tournamentId: string; periodId: string };
  subscription?: { receiver: Receiver; secret: string } | undefined;
}

/**
 * A game with a funded rewards pool (a real multiplier purchase), a one-hour tournament paying ranks 1–3 from half
 * of the pool, and the seeded players (best first) scoring into it through a batch save in the period.
 */
export const fixture = async (
  /** `recurring`: an hourly tournament of two periods (the fixture scores the first). */
  /** `start`: the period's start (default: a random future hour). */
  /** `poolBps`: the period's share of the rewards pool (default POOL_BPS; 0: only deposits fund it). */
  options: {
    subscribe?: boolean;
    playerCount?: number;
    recurring?: boolean;
    start?: Date;
    poolBps?: number;
  } = {},
): Promise<Fixture> => {
  let subscription: Fixture['subscription'];
  const seeded = await seedDay({
    day: randomDay(),
    playerCount: options.playerCount ?? 4,
    onGame: async (dev, gameId) => {
      if (options.subscribe)
        subscription = await subscribeReceiver(dev, gameId, [
          'tournament.period.ended',
          'tournament.period.paid',
          'payout.sent',
          'payout.carried',
        ]);
    },
  });
  const devAuth = { scheme: 'hmac' as const, userId: seeded.dev.arcId, apiKey: seeded.dev.apiKey };
  const start = options.start ?? futureHour();
  const endsAt = new Date(start.getTime() + 3_600_000);
  const created = await createTournament(
    devAuth,
    seeded.gameId,
    {
      title: 'Prize cup',
      startsAt: iso(start),
      ...(options.recurring
        ? {
            recurrence: { everySeconds: 3_600 },
            durationSeconds: 3_600,
            until: iso(new Date(start.getTime() + 7_200_000)),
          }
        : { endsAt: iso(endsAt) }),
      prizes: TABLE,
      prizePool: { rewardsPoolBps: options.poolBps ?? POOL_BPS },
      payoutDelaySeconds: DELAY,
    },
    new Date(start.getTime() - 3_600_000),
  );
  await batchSavePoints(
    devAuth,
    {
      gameId: seeded.gameId,
      entries: seeded.players.map((p, i) => ({ playerId: p.arcId, points: 500 - i * 100 })),
    },
    {
      directory: localDirectory,
      tournaments: runningPeriods,
      now: () => new Date(start.getTime() + 1_800_000),
    },
  );
  const periodId = iso(start);
  return {
    seeded,
    devAuth,
    tournamentId: created.tournamentId,
    periodId,
    endsAt,
    closesAt: new Date(endsAt.getTime() + DELAY * 1000),
    message: { gameId: seeded.gameId, tournamentId: created.tournamentId, periodId },
    subscription,
  };
};

/** Close the fixture's period as the settlement worker does, at `at` (default: the moment it is due). */
export const close = (f: Fixture, at = f.closesAt, deps: Partial<SettlementDeps> = {}) =>
  closePeriod(f.message, { ...settleDeps, ...deps, now: () => at });

export const runOf = async (f: Fixture) => {
  const run = await prizeRunOf(f.seeded.gameId, {
    tournamentId: f.tournamentId,
    periodId: f.periodId,
    endsAt: iso(f.endsAt),
  });
  if (!run?.prize) throw new Error('no prize run');
  return run as typeof run & { prize: PrizeRun };
};
