// Multiplier quotes and the current multiplier (docs/rewards.md): reads only, no chain. Apart from
// purchase.ts and the pool's views so that these functions do not bundle the Solana libraries.

import type { AuthContext } from '../../core/auth.js';
import { utcDay } from '../../core/time.js';
import type { GameRecord } from '../../games/index.js';
import { requireGame } from '../../games/index.js';
import { PURCHASE_FEE_RESERVE, type Slot, type Tier, tierMultiplier } from '../model.js';
import type { PriceSource } from '../price.js';
import { planPlacement, priceLamports, usdOf } from '../pricing.js';
import * as repo from '../repository.js';
import { activeMultiplierBps, NO_MULTIPLIER_BPS } from './multiplier.js';

/** A player's standing on a day's board. */
export interface Standing {
  arcId: string;
  points: number;
  reachedAt: string;
}

/** What the quotes read of a game's board of one UTC day (the play domain's, given by the function). */
export interface DayBoard {
  /** Players with points on the board. */
  count(gameId: string, day: string): Promise<number>;
  /** The top `wanted` standings in leaderboard order, reading on through a tie that straddles the end. */
  top(gameId: string, day: string, wanted: number): Promise<Standing[]>;
  /** A player's counted points (0 when none). */
  pointsOf(gameId: string, arcId: string, day: string): Promise<number>;
}

/** What a quote needs: the SOL price, the day's board and the clock (no chain). */
export interface QuoteDeps {
  price: PriceSource;
  board: DayBoard;
  now: () => Date;
}

/** The game of a request; a session token only speaks for its own game. */
export const gameFor = async (_auth: AuthContext | undefined, gameId: string): Promise<GameRecord> =>
  requireGame(gameId);

/** The price of a tier and duration in a game now: competition is today's board size; USD null without a price. */
export const quote = async (game: GameRecord, tier: Tier, durationSeconds: number, deps: QuoteDeps) => {
  const at = deps.now();
  const [competitors, price] = await Promise.all([
    deps.board.count(game.id, utcDay(at)),
    deps.price.current(),
  ]);
  const lamports = priceLamports({ tier, durationSeconds, competitors });
  return { lamports, usd: price ? usdOf(lamports, price.usd) : null, price, competitors, at };
};

/** GET /multiplier/cost. */
export const multiplierCost = async (
  query: { gameId: string; tier: Tier; durationSeconds: number },
  deps: QuoteDeps,
) => {
  const game = await requireGame(query.gameId);
  const q = await quote(game, query.tier, query.durationSeconds, deps);
  return {
    gameId: game.id,
    tier: query.tier,
    multiplier: tierMultiplier(query.tier),
    durationSeconds: query.durationSeconds,
    lamports: q.lamports.toString(),
    usd: q.usd,
    solUsdPrice: q.price?.usd ?? null,
    priceSource: q.price?.source ?? null,
    competitors: q.competitors,
    feeReserveLamports: PURCHASE_FEE_RESERVE.toString(),
    quotedAt: q.at.toISOString(),
  };
};

const activeView = (slot: Slot | undefined, at: Date) => {
  if (
    !slot?.tier ||
    activeMultiplierBps(slot as unknown as Record<string, unknown>, at) === NO_MULTIPLIER_BPS
  )
    return null;
  const expiresAt = String(slot.endsAt);
  return {
    purchaseId: slot.purchaseId,
    tier: slot.tier,
    multiplier: tierMultiplier(slot.tier),
    startsAt: String(slot.startsAt),
    expiresAt,
    remainingSeconds: Math.max(0, Math.ceil((Date.parse(expiresAt) - at.getTime()) / 1000)),
  };
};

/** GET /multiplier/current. */
export const currentMultiplier = async (auth: AuthContext, gameId: string, deps: Pick<QuoteDeps, 'now'>) => {
  const game = await gameFor(auth, gameId);
  const at = deps.now();
  const multiplier = activeView(await repo.getSlot(game.id, auth.userId), at);
  return { gameId: game.id, arcId: auth.userId, active: multiplier !== null, multiplier };
};

export const round2 = (n: number) => Math.round(n * 100) / 100;

/** GET /multiplier/cost-for-placement. */
export const costForPlacement = async (
  auth: AuthContext,
  query: { gameId: string; targetRank: number; period: 'daily'; pointsPerHour?: number | undefined },
  deps: QuoteDeps,
) => {
  const game = await gameFor(auth, query.gameId);
  const at = deps.now();
  const day = utcDay(at);
  const [standings, competitors, price, mine] = await Promise.all([
    deps.board.top(game.id, day, query.targetRank + 1),
    deps.board.count(game.id, day),
    deps.price.current(),
    deps.board.pointsOf(game.id, auth.userId, day),
  ]);
  const currentPoints = mine;
  const position = standings.findIndex((s) => s.arcId === auth.userId);
  const currentRank = position >= 0 && currentPoints > 0 ? position + 1 : null;
  const holder = standings.filter((s) => s.arcId !== auth.userId)[query.targetRank - 1];
  const neededPoints = holder ? holder.points + 1 : 1;
  const hoursElapsed = (at.getTime() - Date.parse(`${day}T00:00:00.000Z`)) / 3_600_000;
  const hoursLeftToday = 24 - hoursElapsed;
  const pointsPerHour = query.pointsPerHour ?? currentPoints / Math.max(1, hoursElapsed);
  const alreadyThere = currentRank !== null && currentRank <= query.targetRank;
  const plan = alreadyThere
    ? ({ reachable: true, alreadyThere: true, option: null, reason: null } as const)
    : planPlacement({
        currentPoints,
        neededPoints,
        pointsPerHour,
        hoursLeftToday,
        dailyCap: game.maxCumulativePointsPerDay,
        competitors,
      });
  return {
    gameId: game.id,
    period: query.period,
    day,
    targetRank: query.targetRank,
    currentPoints,
    currentRank,
    neededPoints: alreadyThere ? currentPoints : neededPoints,
    pointsGap: alreadyThere ? 0 : Math.max(0, neededPoints - currentPoints),
    assumedPointsPerHour: round2(pointsPerHour),
    rateSource: query.pointsPerHour === undefined ? ('todayAverage' as const) : ('query' as const),
    hoursLeftToday: round2(hoursLeftToday),
    competitors,
    solUsdPrice: price?.usd ?? null,
    reachable: plan.reachable,
    alreadyThere: plan.alreadyThere,
    reason: plan.reason,
    option: plan.option
      ? {
          tier: plan.option.tier,
          multiplier: tierMultiplier(plan.option.tier),
          durationSeconds: plan.option.durationSeconds,
          lamports: plan.option.lamports.toString(),
          usd: price ? usdOf(plan.option.lamports, price.usd) : null,
          projectedPoints: plan.option.projectedPoints,
        }
      : null,
  };
};
