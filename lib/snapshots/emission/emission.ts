// Game coin emission (docs/game-coin.md, "Emission"): each settled UTC day of a coin's emission gives
// that day's share of the emission pool to the day's players, pro rata to their counted points, as cumulative
// per-wallet allocations that the exercise-claim endpoints pay. Exactly once per (game, day): the day's amount
// and allocation digest are frozen first (with the coin's emitted total, in one transaction), then the wallet
// allocations are applied in chunks that each apply once, then the day is marked settled; a retry or a
// concurrent run finishes the same frozen day, never emits it twice.

import { AppError } from '../../core/errors.js';
import { now } from '../../core/time.js';
import { getGame } from '../../games/index.js';
import { endCoin } from '../../launcher/index.js';
import {
  allocationDigest,
  dayShare,
  EMISSION_POOL,
  emissionDayIndex,
  isUtcDay,
  lastEmissionDay,
  type PlayerPoints,
  splitByPoints,
} from '../emission-math.js';
import {
  applyEmissionChunk,
  type EmissionDay,
  freezeEmissionDay,
  getEmissionDay,
  getEmissionState,
  markEmissionDaySettled,
} from './repository.js';

/** Wallet updates per chunk: a transaction holds 100 items, one of them the chunk's marker. */
export const CHUNK_WALLETS = 99;
/** Chunk transactions in flight at once (a 100 000-player day is ~1 000 chunks). */
const PARALLEL_CHUNKS = 4;

/** A game's current coin, as its emission needs it. */
export interface EmittingCoin {
  coinMint: string;
  emissionDays: number;
  emissionStartAt: string | null;
  status: string;
}

export interface CoinEmissionDeps {
  now(): Date;
  /** The game's current coin (undefined: no game or no coin). */
  findGameCoin(gameId: string): Promise<EmittingCoin | undefined>;
  /** End the coin (idempotent): its last emission day settled. */
  endCoin(args: { gameId: string; coinMint: string; endedAt: Date }): Promise<void>;
}

/** Production dependencies of settleCoinEmission, built once in the function that calls it. */
export const coinEmissionDeps = (): CoinEmissionDeps => ({
  now,
  findGameCoin: async (gameId) => (await getGame(gameId))?.coin ?? undefined,
  endCoin,
});

export type EmissionOutcome = {
  status: 'settled' | 'already-settled' | 'no-coin' | 'outside-emission';
  tokensEmitted: string;
  coinEnded: boolean;
};

const chunksOf = <T>(rows: ReadonlyArray<T>, size: number): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
};

/** Freeze the day's emission once; answers the frozen record and whether this call froze it. */
const freeze = async (
  input: { gameId: string; day: string; players: ReadonlyArray<PlayerPoints> },
  coin: EmittingCoin & { emissionStartAt: string },
  index: number,
  at: Date,
): Promise<{ record: EmissionDay; created: boolean }> => {
  for (let attempt = 0; attempt < 10; attempt++) {
    const existing = await getEmissionDay(coin.coinMint, input.day);
    if (existing) return { record: existing, created: false };
    const state = await getEmissionState(coin.coinMint);
    const share = dayShare(EMISSION_POOL, coin.emissionDays, index, state?.emitted ?? 0n);
    const shares = splitByPoints(share, input.players);
    const record: EmissionDay = {
      coinMint: coin.coinMint,
      gameId: input.gameId,
      day: input.day,
      index,
      amount: shares.reduce((sum, s) => sum + s.amount, 0n),
      wallets: shares.length,
      chunks: Math.ceil(shares.length / CHUNK_WALLETS),
      digest: allocationDigest(shares),
      status: 'pending',
      createdAt: at.toISOString(),
      settledAt: null,
    };
    const outcome = await freezeEmissionDay(record, state?.emitted);
    if (outcome === 'frozen') return { record, created: true };
    // 'exists': a concurrent run froze this day; 'raced': another day moved the total. Read again.
  }
  throw new Error(`Could not freeze the emission of ${coin.coinMint} for ${input.day}: too much contention`);
};

/**
 * Settle a coin's emission for one UTC day of its game: that day's share of the emission pool (the even
 * schedule's cumulative target less what earlier days emitted) split between `players` pro rata to points.
 * `settled` when this call froze the day; `already-settled` when an earlier or concurrent call had (this call
 * then finishes applying it if a crash interrupted it); `no-coin` for a game without coin; `outside-emission`
 * for a day outside the coin's emission days. `coinEnded` once the last emission day is settled.
 * A retry must pass the same players (the frozen allocation's digest is checked).
 */
export const settleCoinEmission = async (
  input: { gameId: string; day: string; players: ReadonlyArray<PlayerPoints> },
  deps: CoinEmissionDeps,
): Promise<EmissionOutcome> => {
  if (!isUtcDay(input.day))
    throw new AppError('VALIDATION_ERROR', `day must be a UTC day YYYY-MM-DD (got ${input.day})`);
  const coin = await deps.findGameCoin(input.gameId);
  if (!coin?.emissionStartAt) return { status: 'no-coin', tokensEmitted: '0', coinEnded: false };
  const emitting = { ...coin, emissionStartAt: coin.emissionStartAt };
  const lastDay = lastEmissionDay(emitting);
  const index = emissionDayIndex(emitting, input.day);
  if (index === undefined)
    return { status: 'outside-emission', tokensEmitted: '0', coinEnded: coin.status === 'ended' };

  const { record, created } = await freeze(input, emitting, index, deps.now());
  if (record.status === 'pending') {
    const shares = splitByPoints(record.amount, input.players);
    if (allocationDigest(shares) !== record.digest)
      throw new Error(
        `The players given for ${input.day} differ from the emission frozen for it (${record.digest}); ` +
          'a settlement retry must pass the same frozen inputs',
      );
    // Chunks are independent (each has its own marker): a few at a time, in order.
    const chunks = chunksOf(shares, CHUNK_WALLETS);
    for (let i = 0; i < chunks.length; i += PARALLEL_CHUNKS) {
      const batch = chunks.slice(i, i + PARALLEL_CHUNKS);
      await Promise.all(batch.map((chunk, j) => applyEmissionChunk(record, i + j, chunk)));
    }
    await markEmissionDaySettled(record, deps.now().toISOString());
  }
  const isLast = input.day === lastDay;
  // Also on a repeat: a crash after the day settled and before the coin ended is finished here.
  if (isLast && coin.status !== 'ended')
    await deps.endCoin({ gameId: input.gameId, coinMint: coin.coinMint, endedAt: deps.now() });
  return {
    status: created ? 'settled' : 'already-settled',
    tokensEmitted: record.amount.toString(),
    coinEnded: isLast || coin.status === 'ended',
  };
};
