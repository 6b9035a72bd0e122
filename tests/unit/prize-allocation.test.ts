// A tournament period's prize allocation (pure): the pot is the studio's share of the pool's distributable
// lamports, each paid rank gets its basis points of the pot, and every line's due is sent plus fee, or carried.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocatePrizes } from '../../lib/rewards/index.js';

const RENT = 890_880n;
const FEE = 5_000n;

describe('prize allocation', () => {
  it('pays each ranked winner its share of the pot, never more than the pot, conserving every line', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 15n }),
        fc.integer({ min: 1, max: 5_000 }),
        fc.array(fc.integer({ min: 1, max: 2_000 }), { minLength: 1, maxLength: 5 }),
        fc.array(
          fc.record({
            wallet: fc.option(fc.bigInt({ min: 0n, max: 10n ** 10n })),
            carried: fc.bigInt({ min: 0n, max: 10n ** 7n }),
          }),
          { maxLength: 12 },
        ),
        (undistributed, poolBps, widths, players) => {
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
            table,
            ranked,
            carried,
            wallets,
            rentExemptMinimum: RENT,
            fee: FEE,
          });
          const distributable = undistributed > RENT ? undistributed - RENT : 0n;
          expect(out.pot).toBe((distributable * BigInt(poolBps)) / 10_000n);
          expect(out.allocated).toBeLessThanOrEqual(out.pot);
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
          // Ranks past the table are never paid.
          const lastPaid = Math.max(...table.map((r) => r.toRank));
          expect(out.lines.every((l) => (l.rank ?? 0) <= lastPaid)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
