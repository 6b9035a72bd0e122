// The airdrop is released, never re-split: the pool becomes due evenly over the coin's emission window, and each
// snapshot hands what became due since the previous one to the airdrop-token holders of that moment, pro rata.
// A wallet's allocation is the sum of the rounds it held in (the snapshot's leaves carry these cumulative
// amounts), so Σ allocations = what was released ≤ the pool, whatever holders do between snapshots: moving
// tokens to another wallet moves only later rounds.
import type { AllocationResult } from './allocation.js';
import { LEAF_RECORD_BYTES } from './merkle.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** When a coin's airdrop pool is released: from its launch to the end of its last emission day. */
export interface ReleaseWindow {
  startMs: number;
  endMs: number;
}

/** The window of a coin launched at `emissionStartAt` with `emissionDays` UTC emission days (launch day included). */
export const releaseWindow = (emissionStartAt: string, emissionDays: number): ReleaseWindow => {
  const startMs = Date.parse(emissionStartAt);
  const firstDay = Date.parse(`${emissionStartAt.slice(0, 10)}T00:00:00.000Z`);
  return { startMs, endMs: firstDay + emissionDays * DAY_MS };
};

/** What of `pool` is due at `nowMs`: linear over the window, all of it from its end on (floored, never more). */
export const airdropDue = (pool: bigint, window: ReleaseWindow, nowMs: number): bigint => {
  if (nowMs <= window.startMs) return 0n;
  if (nowMs >= window.endMs || window.endMs <= window.startMs) return pool;
  return (pool * BigInt(nowMs - window.startMs)) / BigInt(window.endMs - window.startMs);
};

/** Cumulative allocations in leaf order (ascending claimant bytes). */
export interface Cumulative {
  claimants: Buffer;
  amounts: BigUint64Array;
  total: bigint;
}

/**
 * The previous snapshot's leaves (48-byte records: claimant, u64 LE unlocked, u64 LE locked) plus one round's
 * shares: a sorted merge, each claimant once, amounts added.
 */
export const addRound = (previous: Uint8Array, round: AllocationResult): Cumulative => {
  const prev = Buffer.from(previous.buffer, previous.byteOffset, previous.byteLength);
  if (prev.length % LEAF_RECORD_BYTES !== 0) throw new RangeError('previous leaves are not whole records');
  const prevCount = prev.length / LEAF_RECORD_BYTES;
  const claimants = Buffer.allocUnsafe((prevCount + round.count) * 32);
  const amounts = new BigUint64Array(prevCount + round.count);
  let i = 0;
  let j = 0;
  let n = 0;
  let total = 0n;
  while (i < prevCount || j < round.count) {
    const order =
      i === prevCount
        ? 1
        : j === round.count
          ? -1
          : Buffer.compare(
              prev.subarray(i * LEAF_RECORD_BYTES, i * LEAF_RECORD_BYTES + 32),
              round.claimants.subarray(j * 32, j * 32 + 32),
            );
    let amount = 0n;
    if (order <= 0) {
      prev.copy(claimants, n * 32, i * LEAF_RECORD_BYTES, i * LEAF_RECORD_BYTES + 32);
      amount += prev.readBigUInt64LE(i * LEAF_RECORD_BYTES + 32);
      i++;
    }
    if (order >= 0) {
      if (order > 0) round.claimants.copy(claimants, n * 32, j * 32, j * 32 + 32);
      amount += round.amounts[j] as bigint;
      j++;
    }
    amounts[n] = amount;
    total += amount;
    n++;
  }
  return { claimants: claimants.subarray(0, n * 32), amounts: amounts.subarray(0, n), total };
};
