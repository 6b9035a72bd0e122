// Multiplier pricing, placement planning and the multiplier in force: pure logic (the SOL price: price-feeds.test.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DISTRIBUTION, DURATIONS, TIER_NAMES, type Tier } from '../../lib/rewards/model.js';
import {
  applyMultiplier,
  competitionFactor,
  planPlacement,
  priceLamports,
  usdOf,
} from '../../lib/rewards/pricing.js';
import { activeMultiplierBps } from '../../lib/rewards/purchases/multiplier.js';

const tierArb = fc.constantFrom(...TIER_NAMES);
const competitorsArb = fc.integer({ min: 0, max: 10_000_000 });
const durationArb = fc.integer({ min: 1, max: 30 * 86_400 });

describe('priceLamports', () => {
  it('is a positive integer number of lamports for any tier, duration and competition', () => {
    fc.assert(
      fc.property(tierArb, durationArb, competitorsArb, (tier, durationSeconds, competitors) => {
        const price = priceLamports({ tier, durationSeconds, competitors });
        expect(typeof price).toBe('bigint');
        expect(price).toBeGreaterThan(0n);
      }),
    );
  });

  it('rises strictly with the tier', () => {
    fc.assert(
      fc.property(durationArb, competitorsArb, (durationSeconds, competitors) => {
        const [a, b, c] = TIER_NAMES.map((tier) => priceLamports({ tier, durationSeconds, competitors }));
        expect(a).toBeLessThan(b as bigint);
        expect(b).toBeLessThan(c as bigint);
      }),
    );
  });

  it('never falls with a longer duration, and rises across the durations on sale', () => {
    fc.assert(
      fc.property(tierArb, durationArb, durationArb, competitorsArb, (tier, d1, d2, competitors) => {
        const [short, long] = d1 <= d2 ? [d1, d2] : [d2, d1];
        expect(priceLamports({ tier, durationSeconds: short, competitors })).toBeLessThanOrEqual(
          priceLamports({ tier, durationSeconds: long, competitors }),
        );
      }),
    );
    for (const tier of TIER_NAMES) {
      const prices = DURATIONS.map((durationSeconds) =>
        priceLamports({ tier, durationSeconds, competitors: 3 }),
      );
      expect(prices[0]).toBeLessThan(prices[1] as bigint);
      expect(prices[1]).toBeLessThan(prices[2] as bigint);
    }
  });

  it('never falls with more competition', () => {
    fc.assert(
      fc.property(tierArb, durationArb, competitorsArb, competitorsArb, (tier, durationSeconds, n1, n2) => {
        const [few, many] = n1 <= n2 ? [n1, n2] : [n2, n1];
        expect(priceLamports({ tier, durationSeconds, competitors: few })).toBeLessThanOrEqual(
          priceLamports({ tier, durationSeconds, competitors: many }),
        );
      }),
    );
    expect(competitionFactor(0)).toBe(1);
    expect(competitionFactor(15)).toBe(2);
  });

  it('matches the documented formula on known points', () => {
    expect(priceLamports({ tier: '1.5x', durationSeconds: 3_600, competitors: 0 })).toBe(2_000_000n);
    expect(priceLamports({ tier: '2x', durationSeconds: 3_600, competitors: 0 })).toBe(5_000_000n);
    expect(priceLamports({ tier: '3x', durationSeconds: 3_600, competitors: 15 })).toBe(24_000_000n);
    // 6^0.8 = 4.1929…: 2 000 000 × 4.1929… = 8 385 83x, rounded up.
    expect(priceLamports({ tier: '1.5x', durationSeconds: 21_600, competitors: 0 })).toBe(
      BigInt(Math.ceil(2_000_000 * 6 ** 0.8)),
    );
  });

  it('rejects impossible inputs', () => {
    expect(() => priceLamports({ tier: '2x', durationSeconds: 0, competitors: 0 })).toThrow(RangeError);
    expect(() => priceLamports({ tier: '2x', durationSeconds: 3_600, competitors: -1 })).toThrow(RangeError);
    expect(() => priceLamports({ tier: '2x', durationSeconds: 1.5, competitors: 0 })).toThrow(RangeError);
  });
});

describe('usdOf and applyMultiplier', () => {
  it('converts lamports to USD with cents precision', () => {
    expect(usdOf(2_000_000n, 150)).toBe(0.3);
    expect(usdOf(1_000_000_000n, 150)).toBe(150);
    expect(usdOf(123_456_789_012n, 151.37)).toBe(18687.65);
    expect(usdOf(0n, 150)).toBe(0);
  });

  it('multiplies points once, rounding down, and leaves 1× unchanged', () => {
    expect(applyMultiplier(101, 15_000)).toBe(151);
    expect(applyMultiplier(100, 20_000)).toBe(200);
    expect(applyMultiplier(7, 30_000)).toBe(21);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000_000 }), (p) => applyMultiplier(p, 10_000) === p),
    );
  });
});

describe('activeMultiplierBps', () => {
  const slot = {
    state: 'active',
    multiplierBps: 20_000,
    startsAt: '2031-01-01T12:00:00.000Z',
    endsAt: '2031-01-01T13:00:00.000Z',
  };
  it('applies only from startsAt (inclusive) until endsAt (exclusive)', () => {
    expect(activeMultiplierBps(slot, new Date('2031-01-01T11:59:59.999Z'))).toBe(10_000);
    expect(activeMultiplierBps(slot, new Date('2031-01-01T12:00:00.000Z'))).toBe(20_000);
    expect(activeMultiplierBps(slot, new Date('2031-01-01T12:59:59.999Z'))).toBe(20_000);
    expect(activeMultiplierBps(slot, new Date('2031-01-01T13:00:00.000Z'))).toBe(10_000);
  });
  it('applies nothing for a reserved slot, no slot, or a malformed one', () => {
    const at = new Date('2031-01-01T12:30:00.000Z');
    expect(activeMultiplierBps({ ...slot, state: 'reserved' }, at)).toBe(10_000);
    expect(activeMultiplierBps(undefined, at)).toBe(10_000);
    expect(activeMultiplierBps({ ...slot, multiplierBps: 'x' }, at)).toBe(10_000);
  });
});

describe('planPlacement', () => {
  const base = {
    currentPoints: 100,
    neededPoints: 601,
    pointsPerHour: 100,
    hoursLeftToday: 12,
    dailyCap: null,
    competitors: 6,
  };
  const price = (tier: Tier, durationSeconds: number) =>
    priceLamports({ tier, durationSeconds, competitors: 6 });

  it('picks the cheapest option that reaches the score', () => {
    // 1 h earns at most 300; 6 h at 1.5x earns 900 → 1000 ≥ 601, and is cheaper than 2x 6 h or any 24 h.
    expect(planPlacement(base)).toEqual({
      reachable: true,
      alreadyThere: false,
      reason: null,
      option: {
        tier: '1.5x',
        durationSeconds: 21_600,
        lamports: price('1.5x', 21_600),
        projectedPoints: 1000,
      },
    });
  });

  it('prefers a cheap short window when it is enough', () => {
    const plan = planPlacement({ ...base, neededPoints: 250 });
    expect(plan.option).toMatchObject({ tier: '1.5x', durationSeconds: 3_600, projectedPoints: 250 });
    // 301 needs 201 more: in 1 h only 3x does it (≈ 20.4 M lamports); 1.5x for 6 h (≈ 14.3 M) is cheaper.
    expect(price('1.5x', 21_600)).toBeLessThan(price('3x', 3_600));
    expect(planPlacement({ ...base, neededPoints: 301 }).option).toMatchObject({
      tier: '1.5x',
      durationSeconds: 21_600,
    });
  });

  it('counts only the hours left today', () => {
    // Two hours left: 24 h at 3x earns 600 → 700 < 1001.
    expect(planPlacement({ ...base, neededPoints: 1001, hoursLeftToday: 2 })).toMatchObject({
      reachable: false,
      reason: 'out_of_reach',
    });
    expect(planPlacement({ ...base, neededPoints: 1001, hoursLeftToday: 12 }).option).toMatchObject({
      durationSeconds: 21_600,
    });
  });

  it('answers alreadyThere, daily_cap and no_earning_rate', () => {
    expect(planPlacement({ ...base, currentPoints: 700 })).toMatchObject({
      reachable: true,
      alreadyThere: true,
      option: null,
    });
    expect(planPlacement({ ...base, dailyCap: 600 })).toMatchObject({
      reachable: false,
      reason: 'daily_cap',
    });
    expect(planPlacement({ ...base, pointsPerHour: 0 })).toMatchObject({
      reachable: false,
      reason: 'no_earning_rate',
    });
  });
});

describe('distribution rule', () => {
  it('splits every distribution completely', () => {
    expect(DISTRIBUTION.creatorShareBps + DISTRIBUTION.playerShareBps).toBe(10_000);
    expect(DISTRIBUTION.playerShareByRankBps.reduce((a, b) => a + b, 0)).toBe(10_000);
  });
});
