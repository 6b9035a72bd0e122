// Multiplier pricing and placement planning: pure functions (docs/rewards.md, unit-tested).
import { DURATIONS, LAMPORTS_PER_SOL, TIER_NAMES, TIERS, type Tier } from './model.js';

/** Price of a 1.5× multiplier for one hour in a game nobody has played today: 0.002 SOL. */
export const BASE_LAMPORTS_PER_HOUR = 2_000_000;

/**
 * Relative price of each tier. Superlinear in the boost (0.5, 1, 2 extra points per point): the extra point
 * costs 2, 2.5 and 3 base units, so higher tiers are dearer per extra point.
 */
export const TIER_PRICE_FACTOR: Record<Tier, number> = { '1.5x': 1, '2x': 2.5, '3x': 6 };

/** Longer windows cost less per hour: hours^0.8 (1 h → 1, 6 h → 4.19, 24 h → 12.71). */
export const durationFactor = (durationSeconds: number): number => (durationSeconds / 3_600) ** 0.8;

/**
 * Busier boards cost more: 1 + log2(1 + players on today's board) / 4
 * (0 players → 1, 1 → 1.25, 3 → 1.5, 15 → 2, 255 → 3, 65 535 → 5).
 */
export const competitionFactor = (competitors: number): number => 1 + Math.log2(1 + competitors) / 4;

export interface PriceInput {
  tier: Tier;
  durationSeconds: number;
  /** Players with points on the game's board today (UTC). */
  competitors: number;
}

/**
 * Price of a multiplier in lamports:
 * ⌈ BASE_LAMPORTS_PER_HOUR × tierFactor × (hours)^0.8 × (1 + log2(1 + competitors) / 4) ⌉.
 * Positive, an integer, non-decreasing in tier, duration and competition.
 */
export const priceLamports = ({ tier, durationSeconds, competitors }: PriceInput): bigint => {
  if (!Number.isInteger(durationSeconds) || durationSeconds <= 0)
    throw new RangeError('durationSeconds must be a positive integer');
  if (!Number.isInteger(competitors) || competitors < 0)
    throw new RangeError('competitors must be a non-negative integer');
  const price =
    BASE_LAMPORTS_PER_HOUR *
    TIER_PRICE_FACTOR[tier] *
    durationFactor(durationSeconds) *
    competitionFactor(competitors);
  return BigInt(Math.ceil(price));
};

/** USD value of lamports at a SOL price, rounded to cents. */
export const usdOf = (lamports: bigint, solUsd: number): number => {
  // Whole SOL and the remainder separately keep the product exact for any realistic amount.
  const whole = Number(lamports / LAMPORTS_PER_SOL);
  const fraction = Number(lamports % LAMPORTS_PER_SOL) / Number(LAMPORTS_PER_SOL);
  return Math.round((whole + fraction) * solUsd * 100) / 100;
};

/** Points after a multiplier (basis points), rounded down: the one place a multiplier is applied. */
export const applyMultiplier = (points: number, multiplierBps: number): number =>
  multiplierBps === 10_000 ? points : Math.floor((points * multiplierBps) / 10_000);

/** Every tier and duration on sale, with its price at a given competition. */
export const priceList = (competitors: number) =>
  TIER_NAMES.flatMap((tier) =>
    DURATIONS.map((durationSeconds) => ({
      tier,
      durationSeconds,
      lamports: priceLamports({ tier, durationSeconds, competitors }),
    })),
  );

export interface PlacementInput {
  currentPoints: number;
  /** Points the player must reach (one more than the player now at the target rank; 1 when the board is short). */
  neededPoints: number;
  /** Assumed earning rate, points per hour of play. */
  pointsPerHour: number;
  /** Hours left in the UTC day: points after midnight count towards the next day's board. */
  hoursLeftToday: number;
  /** The game's maxCumulativePointsPerDay, or null. */
  dailyCap: number | null;
  competitors: number;
}

export type PlacementReason = 'no_earning_rate' | 'daily_cap' | 'out_of_reach';

export type PlacementPlan =
  | { reachable: true; alreadyThere: true; option: null; reason: null }
  | {
      reachable: true;
      alreadyThere: false;
      option: { tier: Tier; durationSeconds: number; lamports: bigint; projectedPoints: number };
      reason: null;
    }
  | { reachable: false; alreadyThere: false; option: null; reason: PlacementReason };

/**
 * The cheapest tier and duration that reach `neededPoints` today, assuming the player plays through the whole
 * window at `pointsPerHour` (boosted by the tier) and everyone else's score stays where it is. Ties in price go
 * to the shorter window, then the lower tier.
 */
export const planPlacement = (input: PlacementInput): PlacementPlan => {
  if (input.currentPoints >= input.neededPoints)
    return { reachable: true, alreadyThere: true, option: null, reason: null };
  if (input.dailyCap !== null && input.neededPoints > input.dailyCap)
    return { reachable: false, alreadyThere: false, option: null, reason: 'daily_cap' };
  if (!(input.pointsPerHour > 0))
    return { reachable: false, alreadyThere: false, option: null, reason: 'no_earning_rate' };
  const candidates = priceList(input.competitors)
    .map((o) => {
      const hours = Math.min(o.durationSeconds / 3_600, Math.max(0, input.hoursLeftToday));
      const earned = applyMultiplier(Math.floor(input.pointsPerHour * hours), TIERS[o.tier]);
      return { ...o, projectedPoints: input.currentPoints + earned };
    })
    .filter((o) => o.projectedPoints >= input.neededPoints)
    .sort(
      (a, b) =>
        (a.lamports < b.lamports ? -1 : a.lamports > b.lamports ? 1 : 0) ||
        a.durationSeconds - b.durationSeconds ||
        TIERS[a.tier] - TIERS[b.tier],
    );
  const best = candidates[0];
  if (!best) return { reachable: false, alreadyThere: false, option: null, reason: 'out_of_reach' };
  return { reachable: true, alreadyThere: false, option: best, reason: null };
};
