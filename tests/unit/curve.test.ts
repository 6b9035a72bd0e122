import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CurveError,
  type CurveState,
  INITIAL_CURVE,
  isComplete,
  PRICE_SCALE,
  priceLamportsPerToken,
  quoteBuy,
  quoteSell,
} from '../../lib/launcher/curve.js';

const SOL = 1_000_000_000n;
const k = (s: CurveState) => s.virtualSolReserves * s.virtualTokenReserves;
const lamports = fc.bigInt({ min: 1n, max: 200n * SOL });

describe('bonding curve', () => {
  it('starts from pump.fun public parameters', () => {
    expect(INITIAL_CURVE).toEqual({
      virtualSolReserves: 30_000_000_000n,
      virtualTokenReserves: 1_073_000_000_000_000n,
      realSolReserves: 0n,
      realTokenReserves: 793_100_000_000_000n,
      tokenTotalSupply: 1_000_000_000_000_000n,
    });
    // 30 SOL / 1.073e9 tokens ≈ 27.958993476 lamports per token at launch.
    expect(priceLamportsPerToken(INITIAL_CURVE)).toBe(27_958_993_476n);
    expect(PRICE_SCALE).toBe(1_000_000_000n);
  });

  it('quotes a 1 SOL buy exactly: 1% fee rounded up, tokens rounded down', () => {
    const quote = quoteBuy(INITIAL_CURVE, SOL);
    expect(quote.fee).toBe(10_000_000n);
    const net = SOL - quote.fee;
    const kk = k(INITIAL_CURVE);
    const newVT = (kk + (30n * SOL + net) - 1n) / (30n * SOL + net);
    expect(quote.tokensOut).toBe(INITIAL_CURVE.virtualTokenReserves - newVT);
    expect(quote.tokensOut).toBe(34_277_831_558_567n);
    expect(quote.lamportsIn).toBe(SOL);
    expect(quote.newState).toEqual({
      ...INITIAL_CURVE,
      virtualSolReserves: 30n * SOL + net,
      virtualTokenReserves: newVT,
      realSolReserves: net,
      realTokenReserves: INITIAL_CURVE.realTokenReserves - quote.tokensOut,
    });
  });

  it('is monotonic: more lamports never buy fewer tokens', () => {
    fc.assert(
      fc.property(lamports, lamports, (a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expect(quoteBuy(INITIAL_CURVE, lo).tokensOut).toBeLessThanOrEqual(
          quoteBuy(INITIAL_CURVE, hi).tokensOut,
        );
      }),
    );
  });

  it('never lets k decrease over any sequence of buys and sells', () => {
    const trade = fc.oneof(
      fc.record({ buy: lamports }),
      fc.record({ sellPart: fc.integer({ min: 1, max: 100 }) }),
    );
    fc.assert(
      fc.property(fc.array(trade, { minLength: 1, maxLength: 30 }), (trades) => {
        let state: CurveState = { ...INITIAL_CURVE };
        let held = 0n;
        for (const t of trades) {
          const before = k(state);
          if ('buy' in t) {
            const q = quoteBuy(state, t.buy);
            held += q.tokensOut;
            state = q.newState;
          } else {
            const amount = (held * BigInt(t.sellPart)) / 100n;
            if (amount === 0n) continue;
            const q = quoteSell(state, amount);
            held -= amount;
            state = q.newState;
          }
          expect(k(state)).toBeGreaterThanOrEqual(before);
          expect(state.realSolReserves).toBeGreaterThanOrEqual(0n);
          expect(state.realTokenReserves).toBeGreaterThanOrEqual(0n);
        }
      }),
    );
  });

  it('rounds in the pool’s favour: buying then selling everything returns less than was paid', () => {
    fc.assert(
      fc.property(lamports, (amount) => {
        const buy = quoteBuy(INITIAL_CURVE, amount);
        if (buy.tokensOut === 0n) return;
        const sell = quoteSell(buy.newState, buy.tokensOut);
        expect(sell.lamportsOut).toBeLessThan(buy.lamportsIn);
        // Without fees the round trip still cannot gain (rounding alone favours the pool).
        const noFee = quoteSell(
          quoteBuy(INITIAL_CURVE, amount, 0n).newState,
          quoteBuy(INITIAL_CURVE, amount, 0n).tokensOut,
          0n,
        );
        expect(noFee.lamportsOut).toBeLessThanOrEqual(amount);
      }),
    );
  });

  it('moves the price up on buys and down on sells', () => {
    const buy = quoteBuy(INITIAL_CURVE, 5n * SOL);
    expect(priceLamportsPerToken(buy.newState)).toBeGreaterThan(priceLamportsPerToken(INITIAL_CURVE));
    const sell = quoteSell(buy.newState, buy.tokensOut / 2n);
    expect(priceLamportsPerToken(sell.newState)).toBeLessThan(priceLamportsPerToken(buy.newState));
  });

  it('cannot drain the real token reserves: a huge buy takes what is left and pays only for that', () => {
    const quote = quoteBuy(INITIAL_CURVE, 1_000n * SOL);
    expect(quote.tokensOut).toBe(INITIAL_CURVE.realTokenReserves);
    expect(quote.lamportsIn).toBeLessThan(1_000n * SOL);
    expect(isComplete(quote.newState)).toBe(true);
    expect(k(quote.newState)).toBeGreaterThanOrEqual(k(INITIAL_CURVE));
    // The net lamports are enough to buy the whole reserve at the curve price.
    const net = quote.lamportsIn - quote.fee;
    expect(quoteBuy(INITIAL_CURVE, quote.lamportsIn).tokensOut).toBe(INITIAL_CURVE.realTokenReserves);
    expect(net).toBeGreaterThan(0n);
    // Nothing more to buy once complete.
    expect(quoteBuy(quote.newState, SOL).tokensOut).toBe(0n);
  });

  it('cannot drain the real SOL reserves: a sell pays out at most what buyers put in', () => {
    const buy = quoteBuy(INITIAL_CURVE, 2n * SOL);
    const sell = quoteSell(buy.newState, 500_000_000_000_000n);
    expect(sell.lamportsOut + sell.fee).toBeLessThanOrEqual(buy.newState.realSolReserves);
    expect(sell.newState.realSolReserves).toBe(0n);
  });

  it('rejects non-positive amounts and impossible fees', () => {
    expect(() => quoteBuy(INITIAL_CURVE, 0n)).toThrow(CurveError);
    expect(() => quoteSell(INITIAL_CURVE, -1n)).toThrow(CurveError);
    expect(() => quoteBuy(INITIAL_CURVE, SOL, 10_000n)).toThrow(CurveError);
  });
});
