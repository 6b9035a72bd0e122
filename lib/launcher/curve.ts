// The game coin's bonding curve: constant product over virtual reserves, k = virtualSol × virtualTokens, with
// pump.fun's public launch parameters as defaults (docs/game-coin.md):
//   virtual SOL reserves      30 SOL                        (30 000 000 000 lamports)
//   virtual token reserves    1 073 000 000 tokens          (× 10^6 base units)
//   real token reserves         793 100 000 tokens          (sellable on the curve; the rest of the supply is
//                                                            reserved in the vault, e.g. for migration)
//   total supply              1 000 000 000 tokens, 6 decimals
//   fee                       1 % (100 bps) of the SOL side, rounded up
// Buying `net` lamports (after fee) yields vT − ⌈k / (vS + net)⌉ tokens; selling t tokens yields
// vS − ⌈k / (vT + t)⌉ lamports before fee. Every division rounds in the pool's favour, so k never decreases,
// and the real reserves cap what a trade can take. Pure bigint arithmetic: no floating point anywhere.

export const TOKEN_DECIMALS = 6;
const TOKEN_UNIT = 10n ** BigInt(TOKEN_DECIMALS);
const LAMPORTS_PER_SOL = 1_000_000_000n;
const BPS = 10_000n;
/** Default fee on the SOL side of every trade, in basis points. */
export const DEFAULT_FEE_BPS = 100n;
/** `priceLamportsPerToken` is scaled by this factor (nano-lamports per whole token). */
export const PRICE_SCALE = 1_000_000_000n;

/** Reserves of one curve. All amounts in base units (lamports, token base units). */
export interface CurveState {
  virtualSolReserves: bigint;
  virtualTokenReserves: bigint;
  realSolReserves: bigint;
  realTokenReserves: bigint;
  tokenTotalSupply: bigint;
}

/** A fresh curve with pump.fun's public parameters. */
export const INITIAL_CURVE: Readonly<CurveState> = Object.freeze({
  virtualSolReserves: 30n * LAMPORTS_PER_SOL,
  virtualTokenReserves: 1_073_000_000n * TOKEN_UNIT,
  realSolReserves: 0n,
  realTokenReserves: 793_100_000n * TOKEN_UNIT,
  tokenTotalSupply: 1_000_000_000n * TOKEN_UNIT,
});

export interface BuyQuote {
  /** Token base units the buyer receives. */
  tokensOut: bigint;
  /** Lamports kept as fee (part of `lamportsIn`). */
  fee: bigint;
  /** Lamports actually spent, fee included: less than requested only when the curve runs out of tokens. */
  lamportsIn: bigint;
  newState: CurveState;
}

export interface SellQuote {
  /** Lamports the seller receives, after fee. */
  lamportsOut: bigint;
  fee: bigint;
  newState: CurveState;
}

/** A trade the curve cannot quote. */
export class CurveError extends Error {
  override readonly name = 'CurveError';
}

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;
const feeOf = (lamports: bigint, feeBps: bigint) => ceilDiv(lamports * feeBps, BPS);

const check = (state: CurveState, feeBps: bigint) => {
  if (state.virtualSolReserves <= 0n || state.virtualTokenReserves <= 0n) throw new CurveError('Empty curve');
  if (feeBps < 0n || feeBps >= BPS) throw new CurveError('Fee must be in [0, 10000) bps');
};

/** Whether every token the curve can sell has been sold. */
export const isComplete = (state: CurveState): boolean => state.realTokenReserves === 0n;

/** Quote a buy of `lamportsIn` lamports (fee included). */
export const quoteBuy = (state: CurveState, lamportsIn: bigint, feeBps = DEFAULT_FEE_BPS): BuyQuote => {
  check(state, feeBps);
  if (lamportsIn <= 0n) throw new CurveError('Buy amount must be positive');
  const { virtualSolReserves: vS, virtualTokenReserves: vT } = state;
  const k = vS * vT;
  let gross = lamportsIn;
  let fee = feeOf(gross, feeBps);
  let net = gross - fee;
  let tokensOut = vT - ceilDiv(k, vS + net);
  if (tokensOut > state.realTokenReserves) {
    // Sell out the curve: charge only what the last token costs.
    tokensOut = state.realTokenReserves;
    const netNeeded = ceilDiv(k, vT - tokensOut) - vS;
    gross = ceilDiv(netNeeded * BPS, BPS - feeBps);
    while (gross - feeOf(gross, feeBps) < netNeeded) gross += 1n;
    fee = feeOf(gross, feeBps);
    net = gross - fee;
  }
  return {
    tokensOut,
    fee,
    lamportsIn: gross,
    newState: {
      ...state,
      virtualSolReserves: vS + net,
      virtualTokenReserves: vT - tokensOut,
      realSolReserves: state.realSolReserves + net,
      realTokenReserves: state.realTokenReserves - tokensOut,
    },
  };
};

/** Quote a sell of `tokensIn` token base units. */
export const quoteSell = (state: CurveState, tokensIn: bigint, feeBps = DEFAULT_FEE_BPS): SellQuote => {
  check(state, feeBps);
  if (tokensIn <= 0n) throw new CurveError('Sell amount must be positive');
  const { virtualSolReserves: vS, virtualTokenReserves: vT } = state;
  const k = vS * vT;
  let gross = vS - ceilDiv(k, vT + tokensIn);
  if (gross > state.realSolReserves) gross = state.realSolReserves;
  const fee = feeOf(gross, feeBps);
  return {
    lamportsOut: gross - fee,
    fee,
    newState: {
      ...state,
      virtualSolReserves: vS - gross,
      virtualTokenReserves: vT + tokensIn,
      realSolReserves: state.realSolReserves - gross,
      realTokenReserves: state.realTokenReserves + tokensIn,
    },
  };
};

/** Spot price of one whole token (10^6 base units) in lamports, × PRICE_SCALE, rounded down. */
export const priceLamportsPerToken = (state: CurveState): bigint =>
  (state.virtualSolReserves * TOKEN_UNIT * PRICE_SCALE) / state.virtualTokenReserves;
