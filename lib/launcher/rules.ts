// The launch rules (docs/launcher.md) that depend only on the game's coin and the clock. Pure.

import { AppError } from '../core/errors.js';
import type { CoinSummary } from '../games/index.js';
import { EMISSION_DAYS, GRACE_PERIOD_MS, LAUNCH_FEE_RESERVE } from './model.js';

/** Where a game stands for its next launch. */
export type CoinPhase =
  | { phase: 'open' }
  | { phase: 'active'; coin: CoinSummary }
  | { phase: 'grace'; coin: CoinSummary; graceEndsAt: Date };

/**
 * The coin's stored lifecycle decides (docs/game-coin.md): `active` until its last emission day settles (whatever
 * the clock says: an unsettled emission is still running); once `ended`, `grace` for 48 hours after the end
 * (`emissionEndAt` is then when it ended), then `open`. No coin: `open`.
 */
export const coinPhase = (coin: CoinSummary | null, now: Date): CoinPhase => {
  if (!coin) return { phase: 'open' };
  if (coin.status === 'active') return { phase: 'active', coin };
  if (coin.status !== 'ended' || coin.emissionEndAt === null) return { phase: 'open' };
  const graceEndsAt = new Date(Date.parse(coin.emissionEndAt) + GRACE_PERIOD_MS);
  if (now.getTime() < graceEndsAt.getTime()) return { phase: 'grace', coin, graceEndsAt };
  return { phase: 'open' };
};

/**
 * Throw the rule a caller breaks by launching now: 400 ACTIVE_GAME_COIN during an emission, 403
 * GRACE_PERIOD_RESTRICTED in the grace period unless the caller holds the game's domain rights (its owner, or its
 * creator while nobody has proved the domain).
 */
export const assertMayLaunch = (coin: CoinSummary | null, isController: boolean, now: Date): void => {
  const state = coinPhase(coin, now);
  if (state.phase === 'active') {
    const until = state.coin.emissionEndAt ? ` until ${state.coin.emissionEndAt}` : '';
    throw new AppError(
      'ACTIVE_GAME_COIN',
      `This game already has an active game coin (${state.coin.gameCoinSymbol ?? state.coin.coinMint}, ` +
        `emitting daily${until}); wait until its last emission day is settled`,
    );
  }
  if (state.phase === 'grace' && !isController) {
    throw new AppError(
      'GRACE_PERIOD_RESTRICTED',
      `The previous game coin's emission ended at ${state.coin.emissionEndAt}; until ` +
        `${state.graceEndsAt.toISOString()} (48-hour grace period) only the game's owner (or its creator, while ` +
        'nobody has proved its domain) may launch the next game coin',
    );
  }
};

/** emissionDays must be one of the allowed values (the message lists them). */
export const assertEmissionDays = (value: number): void => {
  if (!(EMISSION_DAYS as readonly number[]).includes(value)) {
    throw new AppError(
      'VALIDATION_ERROR',
      `emissionDays must be one of the allowed values: ${EMISSION_DAYS.join(', ')} (got ${value})`,
      [{ path: 'emissionDays', message: `must be ${EMISSION_DAYS.join(' or ')}` }],
    );
  }
};

/** Lamports the caller's wallet must hold to launch: the fee reserve plus the initial buy. */
export const requiredBalance = (buyAmount: bigint): bigint => LAUNCH_FEE_RESERVE + buyAmount;

const sol = (lamports: bigint) => {
  const whole = lamports / 1_000_000_000n;
  const fraction = (lamports % 1_000_000_000n).toString().padStart(9, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : `${whole}`;
};

/** 400 INSUFFICIENT_BALANCE unless `balance` covers the fee reserve plus the buy. */
export const assertBalance = (balance: bigint, buyAmount: bigint, wallet: string): void => {
  const needed = requiredBalance(buyAmount);
  if (balance >= needed) return;
  throw new AppError(
    'INSUFFICIENT_BALANCE',
    `Your embedded wallet ${wallet} holds ${sol(balance)} SOL; this launch needs at least ${sol(needed)} SOL ` +
      `(0.07 SOL for fees and rent${buyAmount > 0n ? ` plus the initial buy of ${sol(buyAmount)} SOL` : ''})`,
  );
};

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The emission window of a coin launched at `start`: its emission days are the `emissionDays` UTC days from the
 * launch day on, so the emission ends at the midnight after the last one (then its settlement ends the coin).
 */
export const emissionWindow = (start: Date, emissionDays: number) => {
  const firstDay = Date.parse(`${start.toISOString().slice(0, 10)}T00:00:00.000Z`);
  return {
    emissionStartAt: start.toISOString(),
    emissionEndAt: new Date(firstDay + emissionDays * DAY_MS).toISOString(),
  };
};
