// Game coin emission, the pure part (docs/game-coin.md, "Emission"): the pool, which UTC days emit,
// how much a day emits, and how a day's share is split between its players. Integer base units throughout; every
// split is exact (largest remainders), so nothing is created or lost by rounding.

import { createHash } from 'node:crypto';
import { isCalendarDay } from '../core/time.js';
import { INITIAL_CURVE } from '../launcher/index.js';
import { AIRDROP_SHARE_BPS, airdropPoolSize } from './allocation.js';

/**
 * The airdrop pool of a standard coin: 10 % of its fixed allocation (the supply minted once at launch), never of
 * the supply on chain now, which burning lowers below what earlier rounds already released.
 */
export const AIRDROP_POOL = airdropPoolSize(INITIAL_CURVE.tokenTotalSupply, AIRDROP_SHARE_BPS);

/**
 * The emission pool of a standard coin: the supply the curve does not sell (206 900 000 tokens stay in the
 * vault) less the airdrop pool (10 % of the supply) = 106 900 000 tokens, 1.069 × 10^14 base units.
 */
export const EMISSION_POOL = INITIAL_CURVE.tokenTotalSupply - INITIAL_CURVE.realTokenReserves - AIRDROP_POOL;

const DAY_MS = 24 * 60 * 60 * 1000;

/** Whether `day` is a real `YYYY-MM-DD` calendar day. */
export const isUtcDay = isCalendarDay;

/** The UTC day `offset` days after `day`. */
export const addDays = (day: string, offset: number): string =>
  new Date(Date.parse(`${day}T00:00:00.000Z`) + offset * DAY_MS).toISOString().slice(0, 10);

/**
 * The emission days of a coin whose emission started at `emissionStartAt`: the `emissionDays` UTC days from the
 * launch day on. Returns the 0-based index of `day` among them, or undefined when `day` is outside.
 */
export const emissionDayIndex = (
  coin: { emissionStartAt: string; emissionDays: number },
  day: string,
): number | undefined => {
  const first = Date.parse(`${coin.emissionStartAt.slice(0, 10)}T00:00:00.000Z`);
  const index = Math.round((Date.parse(`${day}T00:00:00.000Z`) - first) / DAY_MS);
  return index >= 0 && index < coin.emissionDays ? index : undefined;
};

/** The last emission day of a coin (YYYY-MM-DD). */
export const lastEmissionDay = (coin: { emissionStartAt: string; emissionDays: number }): string =>
  addDays(coin.emissionStartAt.slice(0, 10), coin.emissionDays - 1);

/**
 * What emission day `index` (0-based) may emit, given what earlier days already emitted: the even schedule's
 * cumulative target ⌊pool × (index + 1) / days⌋ less `emittedBefore`. A day without players emits nothing, so
 * its share rolls into the next settled day; the last day's target is the whole pool.
 */
export const dayShare = (pool: bigint, days: number, index: number, emittedBefore: bigint): bigint => {
  const target = (pool * BigInt(index + 1)) / BigInt(days);
  return target > emittedBefore ? target - emittedBefore : 0n;
};

export interface PlayerPoints {
  userId: string;
  wallet: string;
  points: number;
}

/** One wallet's part of a day's emission. */
export interface WalletShare {
  wallet: string;
  amount: bigint;
}

/**
 * Split `share` between the day's players pro rata to their points, by wallet (a wallet's players are summed),
 * with largest remainders (ties: wallet order), so Σ amounts = share exactly whenever any player has points.
 * Players with no points, and wallets whose share rounds to 0, get nothing. Sorted by wallet: deterministic
 * for the same players in any order.
 */
export const splitByPoints = (share: bigint, players: ReadonlyArray<PlayerPoints>): WalletShare[] => {
  const points = new Map<string, bigint>();
  for (const { wallet, points: p } of players) {
    if (!Number.isFinite(p) || p <= 0) continue;
    points.set(wallet, (points.get(wallet) ?? 0n) + BigInt(Math.floor(p)));
  }
  const wallets = [...points.keys()].sort();
  const total = wallets.reduce((sum, w) => sum + (points.get(w) ?? 0n), 0n);
  if (total === 0n || share === 0n) return [];
  const rows = wallets.map((wallet, order) => {
    const exact = share * (points.get(wallet) ?? 0n);
    return { wallet, order, amount: exact / total, remainder: exact % total };
  });
  let left = share - rows.reduce((sum, r) => sum + r.amount, 0n);
  const byRemainder = [...rows].sort((a, b) =>
    a.remainder === b.remainder ? a.order - b.order : a.remainder > b.remainder ? -1 : 1,
  );
  for (const row of byRemainder) {
    if (left === 0n) break;
    row.amount += 1n;
    left -= 1n;
  }
  return rows.filter((r) => r.amount > 0n).map(({ wallet, amount }) => ({ wallet, amount }));
};

/** A digest of a day's allocation: a retry must apply exactly the allocation the first run froze. */
export const allocationDigest = (shares: ReadonlyArray<WalletShare>): string => {
  const hash = createHash('sha256');
  for (const { wallet, amount } of shares) hash.update(`${wallet}=${amount};`);
  return hash.digest('hex');
};
