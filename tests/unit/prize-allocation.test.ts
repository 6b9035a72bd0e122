// A tournament period's prize allocation (pure): the pot is the studio's share of the pool's distributable
// lamports plus the period's fund (what the studio deposited), never leaving the vault below its reserve; each paid
// rank gets its basis points of the pot, every line's due is sent plus fee, or carried; what the fund does not pay
// goes back to the pool.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  allocatePrizes,
  MAX_PRIZE_POOL_BPS_PER_DAY,
  prizeDayBudget,
} from '../../lib/rewards/settlement/allocation.js';

const RENT = 890_880n;
const FEE = 5_000n;

type Out = ReturnType<typeof allocatePrizes>;
type Table = Array<{ fromRank: number; toRank: number; bps: number }>;

/** Each line: its rank's share of the pot, due = share + carry = sent + fee + carried, sent only where it lands. */
const checkLines = (
  out: Out,
  table: Table,
  carried: Map<string, bigint>,
  wallets: Map<string, { address: string; balance: bigint }>,
) => {
  for (const line of out.lines) {
    const range = table.find((r) => r.fromRank <= (line.rank ?? 0) && (line.rank ?? 0) <= r.toRank);
    expect(range).toBeDefined();
    expect(BigInt(line.share)).toBe((out.pot * BigInt(range?.bps ?? 0)) / 10_000n);
    expect(BigInt(line.due)).toBe(BigInt(line.share) + (carried.get(line.arcId) ?? 0n));
    expect(BigInt(line.send) + BigInt(line.fee) + BigInt(line.carryOut)).toBe(BigInt(line.due));
    // Sent only where it lands: a wallet, and an empty account reaches the rent-exempt minimum.
    if (BigInt(line.send) > 0n) {
      const wallet = wallets.get(line.arcId);
      expect(wallet).toBeDefined();
      if (wallet?.balance === 0n) expect(BigInt(line.send)).toBeGreaterThanOrEqual(RENT);
    }
  }
};

describe('prize allocation', () => {
  it('pays each ranked winner its share of the pot, never more than the pot, conserving every line', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 15n }),
        fc.integer({ min: 0, max: 5_000 }),
        // The period's fund, and other periods' deposits held in the vault besides it.
        fc.bigInt({ min: 0n, max: 10n ** 13n }),
        fc.bigInt({ min: 0n, max: 10n ** 9n }),
        fc.array(fc.integer({ min: 1, max: 2_000 }), { minLength: 1, maxLength: 5 }),
        fc.array(
          fc.record({
            wallet: fc.option(fc.bigInt({ min: 0n, max: 10n ** 10n })),
            carried: fc.bigInt({ min: 0n, max: 10n ** 7n }),
          }),
          { maxLength: 12 },
        ),
        // What prize runs may still take from the pool today (the daily bound less what they took).
        fc.bigInt({ min: 0n, max: 10n ** 15n }),
        (undistributed, poolBps, fund, others, widths, players, poolRoom) => {
          // Consecutive ranges 1…, each paying at most 2,000 bps in all: the table pays at most 10,000 bps.
          let from = 1;
          const table = widths.map((bps, i) => {
            const range = { fromRank: from, toRank: from + i, bps: Math.floor(bps / (i + 1)) || 1 };
            from += i + 1;
            return range;
          });
          const ranked = players.map((_, i) => ({ arcId: `p${i}`, points: 1_000 - i }));
          const wallets = new Map<string, { address: string; balance: bigint }>(
            players.flatMap((p, i) =>
              p.wallet === null ? [] : [[`p${i}`, { address: `w${i}`, balance: p.wallet }] as const],
            ),
          );
          const carried = new Map<string, bigint>(players.map((p, i) => [`p${i}`, p.carried]));
          const out = allocatePrizes({
            undistributed,
            vaultReserve: RENT,
            poolBps,
            poolRoom,
            fund,
            earmarked: fund + others,
            table,
            ranked,
            carried,
            wallets,
            rentExemptMinimum: RENT,
            fee: FEE,
          });
          const distributable = undistributed > RENT ? undistributed - RENT : 0n;
          const share = (distributable * BigInt(poolBps)) / 10_000n;
          // The period's share, at most what the day's bound leaves: the rest stays in the pool.
          const poolPart = share < poolRoom ? share : poolRoom;
          expect(out.poolPart).toBe(poolPart);
          // The whole fund is in the pot unless the vault would end below its reserve: then exactly what keeps it.
          const room = undistributed + fund + others - RENT - poolPart;
          expect(out.fundPart).toBe(fund < room ? fund : room > 0n ? room : 0n);
          expect(out.pot).toBe(poolPart + out.fundPart);
          expect(out.allocated).toBeLessThanOrEqual(out.pot);
          // What the vault still owes after the run (the pool's and the other funds') covers its reserve, or the
          // fund added nothing.
          const left = undistributed + fund + others - out.allocated;
          if (out.fundPart > 0n) expect(left).toBeGreaterThanOrEqual(RENT);
          // The fund pays first; the rest of it goes back to the pool; nothing is created or lost.
          expect(out.fundUsed).toBe(out.allocated < out.fundPart ? out.allocated : out.fundPart);
          expect(out.fundUsed + out.fundReleased).toBe(fund);
          // What the run takes from the pool itself never exceeds the day's room.
          expect(out.poolTaken).toBe(out.allocated - out.fundUsed);
          expect(out.poolTaken).toBeLessThanOrEqual(poolRoom);
          checkLines(out, table, carried, wallets);
          // Ranks past the table are never paid.
          const lastPaid = Math.max(...table.map((r) => r.toRank));
          expect(out.lines.every((l) => (l.rank ?? 0) <= lastPaid)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('takes at most half of what the pool could distribute in a day, however many periods close that day', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 15n }),
        fc.array(fc.integer({ min: 0, max: 5_000 }), { minLength: 1, maxLength: 60 }),
        (start, periods) => {
          let distributable = start;
          let taken = 0n;
          for (const poolBps of periods) {
            const { room } = prizeDayBudget(distributable, taken);
            const share = (distributable * BigInt(poolBps)) / 10_000n;
            const take = share < room ? share : room;
            distributable -= take;
            taken += take;
          }
          expect(taken).toBeLessThanOrEqual((start * BigInt(MAX_PRIZE_POOL_BPS_PER_DAY)) / 10_000n);
        },
      ),
      { numRuns: 300 },
    );
  });
});
