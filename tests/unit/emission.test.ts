// Game coin emission, the pure part (lib/snapshots/emission-math.ts) and the claim guard's arithmetic: the pool,
// the even daily schedule, the pro-rata split, and a model of numbered claim receipts under random settlements,
// builds and landings (fast-check): no wallet ever receives more than its allocation and the vault never pays
// more than the airdrop and emission pools hold. The same code against the local stack and chain:
// tests/integration/emission.test.ts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nextSettlement } from '../../lib/snapshots/claims/claims.js';
import { claimableAmount } from '../../lib/snapshots/claims/ledger.js';
import {
  addDays,
  allocationDigest,
  dayShare,
  EMISSION_POOL,
  emissionDayIndex,
  isUtcDay,
  lastEmissionDay,
  splitByPoints,
} from '../../lib/snapshots/emission-math.js';

const TOKEN = 1_000_000n;
const AIRDROP_POOL = 100_000_000n * TOKEN;

describe('emission schedule', () => {
  it('emits 106 900 000 tokens: the unsold 206.9 M less the 100 M airdrop pool', () => {
    expect(EMISSION_POOL).toBe(106_900_000n * TOKEN);
  });

  it('counts the emission days from the launch day, UTC', () => {
    const coin = { emissionStartAt: '2030-01-01T18:30:00.000Z', emissionDays: 7 };
    expect(emissionDayIndex(coin, '2029-12-31')).toBeUndefined();
    expect(emissionDayIndex(coin, '2030-01-01')).toBe(0);
    expect(emissionDayIndex(coin, '2030-01-07')).toBe(6);
    expect(emissionDayIndex(coin, '2030-01-08')).toBeUndefined();
    expect(lastEmissionDay(coin)).toBe('2030-01-07');
    expect(addDays('2030-02-28', 1)).toBe('2030-03-01');
    expect(isUtcDay('2030-02-29')).toBe(false);
    expect(isUtcDay('2032-02-29')).toBe(true);
    expect(isUtcDay('2030-1-01')).toBe(false);
  });

  it('spreads the pool evenly: the days in order emit exactly the pool, each within one unit of pool/days', () => {
    for (const days of [7, 30]) {
      let emitted = 0n;
      for (let i = 0; i < days; i++) {
        const share = dayShare(EMISSION_POOL, days, i, emitted);
        const even = EMISSION_POOL / BigInt(days);
        expect(share === even || share === even + 1n).toBe(true);
        emitted += share;
      }
      expect(emitted).toBe(EMISSION_POOL);
    }
  });

  it('rolls a day without players into the next settled day', () => {
    const day0 = dayShare(700n, 7, 0, 0n);
    expect(day0).toBe(100n);
    expect(dayShare(700n, 7, 1, 0n)).toBe(200n); // day 0 emitted nothing
    expect(dayShare(700n, 7, 6, 300n)).toBe(400n); // the last day takes the rest
    expect(dayShare(700n, 7, 2, 900n)).toBe(0n);
  });

  it('names the next day to settle until the coin ends', () => {
    const schedule = { status: 'active', emissionDays: 7, emissionStartAt: '2030-01-01T18:30:00.000Z' };
    expect(nextSettlement({ ...schedule, lastSettledDay: null })).toEqual({
      day: '2030-01-01',
      notBefore: '2030-01-02T00:00:00.000Z',
      lastDay: '2030-01-07',
    });
    expect(nextSettlement({ ...schedule, lastSettledDay: '2030-01-03' })?.day).toBe('2030-01-04');
    expect(nextSettlement({ ...schedule, status: 'ended', lastSettledDay: '2030-01-07' })).toBeNull();
  });
});

describe('pro-rata split of a day', () => {
  it('splits exactly by points, summing a wallet’s players, dropping zero points', () => {
    const shares = splitByPoints(1000n, [
      { userId: 'u1', wallet: 'A', points: 1 },
      { userId: 'u2', wallet: 'B', points: 1 },
      { userId: 'u3', wallet: 'C', points: 1 },
      { userId: 'u4', wallet: 'A', points: 0 },
      { userId: 'u5', wallet: 'D', points: 0 },
    ]);
    expect(shares).toEqual([
      { wallet: 'A', amount: 334n },
      { wallet: 'B', amount: 333n },
      { wallet: 'C', amount: 333n },
    ]);
    expect(splitByPoints(1000n, [])).toEqual([]);
    expect(splitByPoints(0n, [{ userId: 'u', wallet: 'A', points: 5 }])).toEqual([]);
  });

  it('is exact and order-independent for any players (property)', () => {
    const player = fc.record({
      userId: fc.uuid(),
      wallet: fc.constantFrom('W1', 'W2', 'W3', 'W4', 'W5', 'W6'),
      points: fc.integer({ min: 0, max: 1_000_000 }),
    });
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: EMISSION_POOL }),
        fc.array(player, { maxLength: 40 }),
        (share, players) => {
          const shares = splitByPoints(share, players);
          const total = shares.reduce((sum, s) => sum + s.amount, 0n);
          const anyPoints = players.some((p) => p.points > 0);
          expect(total).toBe(anyPoints ? share : 0n);
          expect(shares.every((s) => s.amount > 0n)).toBe(true);
          const reversed = splitByPoints(share, [...players].reverse());
          expect(allocationDigest(reversed)).toBe(allocationDigest(shares));
        },
      ),
      { numRuns: 300 },
    );
  });
});

/**
 * A model of the vault and the numbered claim receipts (claim-ledger.ts): a build of wallet w takes the number
 * of w's landed claims as its receipt number and pays allocation − claimed; a sent transaction lands only if its
 * receipt does not exist yet. Events interleave settlements, builds (several per number) and landings.
 */
describe('claims never pay more than allocated (property)', () => {
  type Event =
    | { kind: 'settle'; points: number[] }
    | { kind: 'build'; wallet: number }
    | { kind: 'land'; pick: number };
  const WALLETS = 4;
  const event: fc.Arbitrary<Event> = fc.oneof(
    fc.record({
      kind: fc.constant('settle' as const),
      points: fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: WALLETS, maxLength: WALLETS }),
    }),
    fc.record({ kind: fc.constant('build' as const), wallet: fc.integer({ min: 0, max: WALLETS - 1 }) }),
    fc.record({ kind: fc.constant('land' as const), pick: fc.nat() }),
  );

  /** The vault, the wallets' allocations and receipts, and the transactions built but not sent yet. */
  class Model {
    readonly allocation: bigint[];
    readonly receipts = Array.from({ length: WALLETS }, () => new Map<number, bigint>());
    readonly pending: Array<{ wallet: number; n: number; amount: bigint }> = [];
    emitted = 0n;
    settled = 0;
    vaultPaid = 0n;

    constructor(
      readonly days: number,
      airdropWeights: bigint[],
    ) {
      // Airdrop: one snapshot, the pool split by weights (as the snapshot builder does).
      const airdrop = splitByPoints(
        AIRDROP_POOL,
        airdropWeights.map((w, i) => ({ userId: `${i}`, wallet: `${i}`, points: Number(w % 1_000_000n) })),
      );
      this.allocation = Array.from(
        { length: WALLETS },
        (_, i) => airdrop.find((s) => s.wallet === `${i}`)?.amount ?? 0n,
      );
    }

    claimed(w: number) {
      return [...(this.receipts[w]?.values() ?? [])].reduce((a, b) => a + b, 0n);
    }

    settle(points: number[]) {
      if (this.settled >= this.days) return;
      const share = dayShare(EMISSION_POOL, this.days, this.settled, this.emitted);
      const players = points.map((p, i) => ({ userId: `${i}`, wallet: `${i}`, points: p }));
      for (const s of splitByPoints(share, players)) {
        const w = Number(s.wallet);
        this.allocation[w] = (this.allocation[w] ?? 0n) + s.amount;
        this.emitted += s.amount;
      }
      this.settled += 1;
    }

    build(w: number) {
      const amount = claimableAmount(this.allocation[w] ?? 0n, this.claimed(w));
      if (amount > 0n) this.pending.push({ wallet: w, n: this.receipts[w]?.size ?? 0, amount });
    }

    land(pick: number) {
      const [tx] = this.pending.splice(pick % Math.max(1, this.pending.length), 1);
      const receipts = tx ? this.receipts[tx.wallet] : undefined;
      // The receipt is created once: a second transaction for the same number fails on chain.
      if (!tx || !receipts || receipts.has(tx.n)) return;
      receipts.set(tx.n, tx.amount);
      this.vaultPaid += tx.amount;
    }

    check() {
      for (let w = 0; w < WALLETS; w++) expect(this.claimed(w)).toBeLessThanOrEqual(this.allocation[w] ?? 0n);
      expect(this.emitted).toBeLessThanOrEqual(EMISSION_POOL);
      expect(this.vaultPaid).toBeLessThanOrEqual(AIRDROP_POOL + this.emitted);
    }
  }

  it('per wallet and for the vault, over random days, builds and landings', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(7, 30),
        fc.array(fc.bigInt({ min: 0n, max: AIRDROP_POOL }), { minLength: WALLETS, maxLength: WALLETS }),
        fc.array(event, { maxLength: 120 }),
        (days, airdropWeights, events) => {
          const model = new Model(days, airdropWeights);
          for (const e of events) {
            if (e.kind === 'settle') model.settle(e.points);
            else if (e.kind === 'build') model.build(e.wallet);
            else model.land(e.pick);
            model.check();
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
