// The daily allocation (lib/rewards/settlement/allocation.ts) is a pure function of frozen inputs. Over 30 random days of
// purchases, boards, splits, wallets and carries, every lamport is accounted for: the pool's inflow is always
// paid + fees + carried + undistributed, each line's due is sent + fee + carried on, the vault keeps its reserve,
// and nothing is sent that could not land.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocateDay } from '../../lib/rewards/settlement/allocation.js';
import type { PayoutLine } from '../../lib/rewards/settlement/model.js';

const RULE = {
  payoutHorizonDays: 30,
  creatorShareBps: 2_000,
  playerShareBps: 8_000,
  playerShareByRankBps: [2_500, 1_800, 1_300, 1_000, 800, 700, 600, 500, 450, 350],
} as const;
const RENT = 890_880n;
const FEE = 5_000n;
const USERS = Array.from({ length: 20 }, (_, i) => `user-${i}`);

const day = fc.record({
  inflow: fc.bigInt({ min: 0n, max: 5_000_000_000n }),
  board: fc.uniqueArray(fc.integer({ min: 0, max: 19 }), { maxLength: 15 }),
  creators: fc.uniqueArray(fc.integer({ min: 0, max: 19 }), { minLength: 1, maxLength: 3 }),
  cut: fc.integer({ min: 1, max: 9_999 }),
});

/** A split of 10 000 basis points over the creators (the games domain validates that they sum to 10 000). */
const splitOf = (creators: number[], cut: number): Record<string, number> => {
  if (creators.length === 1) return { [USERS[creators[0] ?? 0] ?? '']: 10_000 };
  const first = Math.floor(cut / (creators.length - 1));
  const split: Record<string, number> = {};
  let left = 10_000;
  creators.forEach((c, i) => {
    const bps = i === creators.length - 1 ? left : Math.min(left, i === 0 ? cut : first);
    split[USERS[c] ?? ''] = (split[USERS[c] ?? ''] ?? 0) + bps;
    left -= bps;
  });
  return split;
};

/** Check one line and apply it to the simulated chain and carries: what it paid and the fee. */
const applyLine = (line: PayoutLine, balances: Map<string, bigint>, carried: Map<string, bigint>) => {
  const due = BigInt(line.due);
  const send = BigInt(line.send);
  const fee = BigInt(line.fee);
  expect(due).toBe(BigInt(line.share) + BigInt(line.carriedIn));
  expect(BigInt(line.carriedIn)).toBe(carried.get(line.arcId) ?? 0n);
  expect(send + fee + BigInt(line.carryOut)).toBe(due);
  if (send === 0n) {
    expect(fee).toBe(0n);
    carried.set(line.arcId, BigInt(line.carryOut));
    return { paid: 0n, fee: 0n };
  }
  // Only what can land is sent: a wallet, the fee covered, an empty account reaching rent exemption.
  const balance = balances.get(line.arcId);
  expect(balance).toBeDefined();
  expect(fee).toBe(FEE);
  if (balance === 0n) expect(send >= RENT).toBe(true);
  balances.set(line.arcId, (balance ?? 0n) + send);
  carried.delete(line.arcId);
  return { paid: send, fee };
};

describe('allocateDay over 30 random days', () => {
  it('conserves every lamport', () => {
    fc.assert(
      fc.property(
        fc.array(day, { minLength: 30, maxLength: 30 }),
        // Which users have a wallet, and which wallets exist on chain (balance > 0) from the start.
        fc.array(fc.constantFrom('none', 'empty', 'funded'), { minLength: 20, maxLength: 20 }),
        (days, walletKinds) => {
          const balances = new Map<string, bigint>();
          USERS.forEach((u, i) => {
            if (walletKinds[i] !== 'none') balances.set(u, walletKinds[i] === 'funded' ? 10_000_000n : 0n);
          });
          const carried = new Map<string, bigint>();
          let inflow = 0n;
          let allocated = 0n;
          let paid = 0n;
          let fees = 0n;
          for (const d of days) {
            inflow += d.inflow;
            const undistributed = inflow - allocated;
            const ranked = d.board.map((u, i) => ({ arcId: USERS[u] ?? '', points: 1_000 - i }));
            const result = allocateDay({
              undistributed,
              vaultReserve: RENT,
              creatorSplit: splitOf(d.creators, d.cut),
              ranked,
              carried,
              wallets: new Map([...balances].map(([u, balance]) => [u, { address: `wallet-${u}`, balance }])),
              rentExemptMinimum: RENT,
              fee: FEE,
              rule: RULE,
            });
            // The day allocates at most 1/30 of what is above the reserve, and exactly the sum of its shares.
            const cap = undistributed > RENT ? (undistributed - RENT) / 30n : 0n;
            expect(result.allocated <= cap).toBe(true);
            expect(result.lines.reduce((s, l) => s + BigInt(l.share), 0n)).toBe(result.allocated);
            expect(result.creatorPart + result.playerPart <= cap).toBe(true);
            allocated += result.allocated;
            for (const line of result.lines) {
              const out = applyLine(line, balances, carried);
              paid += out.paid;
              fees += out.fee;
            }
            const carriedTotal = [...carried.values()].reduce((s, v) => s + v, 0n);
            // pool in = paid + fees + carried + undistributed, every day.
            expect(paid + fees + carriedTotal + (inflow - allocated)).toBe(inflow);
            // The vault (inflow − what left it) never drops below its reserve once it holds it.
            if (inflow >= RENT) expect(inflow - paid - fees >= RENT).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('pays the published percentages by rank and splits the creator part, remainders undistributed', () => {
    const result = allocateDay({
      undistributed: 30n * 1_000_000_000n + RENT,
      vaultReserve: RENT,
      creatorSplit: { a: 7_000, b: 3_000 },
      ranked: [
        { arcId: 'p1', points: 10 },
        { arcId: 'a', points: 9 },
        { arcId: 'p3', points: 8 },
      ],
      carried: new Map([['p3', 7n]]),
      wallets: new Map([
        ['a', { address: 'wa', balance: 1n }],
        ['b', { address: 'wb', balance: 0n }],
        ['p1', { address: 'w1', balance: 0n }],
      ]),
      rentExemptMinimum: RENT,
      fee: FEE,
      rule: RULE,
    });
    // Budget 1 SOL: creators 0.2 SOL (0.14 / 0.06), players 0.8 SOL; ranks 4..10 have no one: undistributed.
    const line = (id: string) => result.lines.find((l) => l.arcId === id);
    expect(line('p1')).toMatchObject({
      share: '200000000',
      send: String(200_000_000n - FEE),
      roles: ['player'],
    });
    expect(line('a')).toMatchObject({
      share: String(140_000_000n + 144_000_000n),
      roles: ['creator', 'player'],
      rank: 2,
    });
    expect(line('b')).toMatchObject({ share: '60000000', send: String(60_000_000n - FEE) });
    // No wallet: the whole due carries over, the earlier carry included.
    expect(line('p3')).toMatchObject({
      share: '104000000',
      carriedIn: '7',
      send: '0',
      carryOut: '104000007',
    });
    expect(result.allocated).toBe(200_000_000n + (800_000_000n * 5_600n) / 10_000n);
  });
});
