// The SOL price in USD for the API's USD figures (docs/rewards.md, "SOL → USD"): public feeds asked in order, the
// first fresh and sane answer wins; a short per-container cache; the last good price while every feed fails, for a
// bounded time; then no price (read views show null USD figures, never a 500). A fixed price only when the deployer
// sets one.
import { safeFetch } from '../adapters/safe-fetch.js';
import { type PriceFeedName, settings } from '../core/config.js';
import { logger } from '../core/logger.js';

/** A SOL price and where it came from. */
export interface SolUsd {
  usd: number;
  /** `fixed` or the feed that answered: `pyth`, `coinbase`, `coingecko`. */
  source: string;
  /** When the feed says the price was observed (when fetched, for a feed that gives no time). */
  at: Date;
}

/** A source of the SOL price in USD. */
export interface PriceSource {
  /** The price now, or null when no fresh price and no last good one is at hand. Never throws. */
  current(): Promise<SolUsd | null>;
  /** The price now; throws PriceUnavailable where current() answers null (for callers that must have one). */
  solUsd(): Promise<number>;
}

/** No feed answered and the last good price is too old (or there is none). */
export class PriceUnavailable extends Error {
  override readonly name = 'PriceUnavailable';
}

const orThrow = async (source: Pick<PriceSource, 'current'>): Promise<number> => {
  const price = await source.current();
  if (!price) throw new PriceUnavailable('SOL price unavailable: every price feed failed');
  return price.usd;
};

/** A fixed price, only when the deployer sets one (SOL_USD_PRICE_SOURCE=fixed). */
export const fixedPrice = (usd: number): PriceSource => {
  const current = async () => ({ usd, source: 'fixed', at: new Date() });
  return { current, solUsd: () => orThrow({ current }) };
};

/** Pyth's SOL/USD price feed id (the same on every chain Pyth serves). */
export const PYTH_SOL_USD_FEED_ID = 'ef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d';
/** Pyth publishes a confidence interval; a price less certain than this (conf / price) is refused. */
export const MAX_CONFIDENCE_RATIO = 0.02;

/** What a feed's answer says: the price and, when the feed gives one, when it was observed (ms). */
interface Reading {
  usd: number;
  at?: number;
}

const object = (value: unknown, what: string): Record<string, unknown> => {
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new Error(`${what} is not an object`);
  return value as Record<string, unknown>;
};

const INTEGER = /^-?[0-9]{1,19}$/;
const DECIMAL = /^[0-9]{1,12}(\.[0-9]{1,18})?$/;

/** Hermes `GET /v2/updates/price/latest?ids[]=…&parsed=true`: `parsed[].price` = {price, conf, expo, publish_time}. */
const readPyth = (body: unknown): Reading => {
  const parsed = object(body, 'the answer').parsed;
  if (!Array.isArray(parsed)) throw new Error('no parsed price updates');
  const update = parsed
    .map((u) => object(u, 'a price update'))
    .find((u) => String(u.id).toLowerCase().replace(/^0x/, '') === PYTH_SOL_USD_FEED_ID);
  if (!update) throw new Error('no SOL/USD update');
  const { price, conf, expo, publish_time } = object(update.price, 'price');
  if (typeof price !== 'string' || !INTEGER.test(price) || typeof conf !== 'string' || !INTEGER.test(conf))
    throw new Error('price or conf is not an integer string');
  if (!Number.isInteger(expo) || (expo as number) < -18 || (expo as number) > 0)
    throw new Error('expo out of range');
  if (!Number.isInteger(publish_time)) throw new Error('no publish_time');
  // Dividing by the power of ten keeps decimal mantissas exact (15000000000 / 1e8 is 150, not 150.00000000000003).
  const scale = 10 ** -(expo as number);
  const usd = Number(price) / scale;
  if (Number(conf) / scale > usd * MAX_CONFIDENCE_RATIO)
    throw new Error(`confidence interval wider than ${MAX_CONFIDENCE_RATIO * 100}% of the price`);
  return { usd, at: (publish_time as number) * 1000 };
};

/** Coinbase `GET /v2/prices/SOL-USD/spot`: {data: {amount: "…", base: "SOL", currency: "USD"}}, no timestamp. */
const readCoinbase = (body: unknown): Reading => {
  const { amount, base, currency } = object(object(body, 'the answer').data, 'data');
  if (base !== 'SOL' || currency !== 'USD') throw new Error(`answered ${String(base)}-${String(currency)}`);
  if (typeof amount !== 'string' || !DECIMAL.test(amount)) throw new Error('amount is not a decimal string');
  return { usd: Number(amount) };
};

/** CoinGecko `GET /simple/price?ids=solana&vs_currencies=usd&include_last_updated_at=true`. */
const readCoingecko = (body: unknown): Reading => {
  const { usd, last_updated_at } = object(object(body, 'the answer').solana, 'solana');
  if (typeof usd !== 'number') throw new Error('usd is not a number');
  if (!Number.isInteger(last_updated_at)) throw new Error('no last_updated_at');
  return { usd, at: (last_updated_at as number) * 1000 };
};

/** Each feed: its price path under the configured base URL, and how to read its answer. */
const FEEDS: Record<PriceFeedName, { path: string; read: (body: unknown) => Reading }> = {
  pyth: { path: `/v2/updates/price/latest?ids[]=0x${PYTH_SOL_USD_FEED_ID}&parsed=true`, read: readPyth },
  coinbase: { path: '/v2/prices/SOL-USD/spot', read: readCoinbase },
  coingecko: {
    path: '/simple/price?ids=solana&vs_currencies=usd&include_last_updated_at=true',
    read: readCoingecko,
  },
};

export interface FeedsOptions {
  /** A feed's answer older than this (by its own timestamp) is refused. */
  maxAgeMs: number;
  /** A good answer is reused this long before the feeds are asked again. */
  cacheMs: number;
  /** Sanity bounds (USD per SOL): an answer outside them is refused. */
  min: number;
  max: number;
  /** While every feed fails, the last good price is used until it is this old. Default 15 minutes. */
  lastGoodMs?: number;
  /** After every feed failed, they are not asked again for this long (each request would wait them out). Default 10 s. */
  retryMs?: number;
  /** Permit loopback feeds (the local stand-in). */
  allowLoopback?: boolean;
  /** Injectable for tests. */
  clock?: () => number;
}

/** How long one feed may take: three in a row must fit in a 10 s function with time to spare. */
export const FEED_TIMEOUT_MS = 2_000;
/** A price answer is a few hundred bytes (Pyth's, with its signed update, a few KB). */
export const FEED_MAX_BYTES = 32 * 1024;
/** A future timestamp beyond clock skew is a feed lying about freshness. */
const MAX_CLOCK_SKEW_MS = 10_000;

const fetchJson = async (url: string, allowLoopback: boolean): Promise<unknown> => {
  const res = await safeFetch(url, {
    accept: 'application/json',
    maxBytes: FEED_MAX_BYTES,
    timeoutMs: FEED_TIMEOUT_MS,
    maxRedirects: 1,
    allowLoopback,
  });
  if (res.status !== 200) throw new Error(`answered ${res.status}`);
  if (res.truncated) throw new Error(`answer larger than ${FEED_MAX_BYTES} bytes`);
  return JSON.parse(res.body.toString('utf8'));
};

/** Ask one feed; its answer must be fresh and within the bounds. */
const ask = async (
  feed: { name: PriceFeedName; baseUrl: string },
  options: FeedsOptions,
  now: () => number,
): Promise<SolUsd> => {
  const { path, read } = FEEDS[feed.name];
  const reading = read(
    await fetchJson(`${feed.baseUrl.replace(/\/+$/, '')}${path}`, options.allowLoopback ?? false),
  );
  const fetchedAt = now();
  const at = reading.at ?? fetchedAt;
  if (!Number.isFinite(reading.usd) || reading.usd < options.min || reading.usd > options.max)
    throw new Error(`price ${reading.usd} outside ${options.min}..${options.max}`);
  if (at > fetchedAt + MAX_CLOCK_SKEW_MS) throw new Error('timestamp in the future');
  if (fetchedAt - at > options.maxAgeMs)
    throw new Error(`price ${Math.round((fetchedAt - at) / 1000)} s old`);
  return { usd: reading.usd, source: feed.name, at: new Date(Math.min(at, fetchedAt)) };
};

/**
 * The feeds, asked in order until one answers fresh and within the bounds. Concurrent requests in a container share
 * one round of asking; a good price is reused for `cacheMs`.
 */
export const feedsPrice = (
  feeds: ReadonlyArray<{ name: PriceFeedName; baseUrl: string }>,
  options: FeedsOptions,
): PriceSource => {
  const now = options.clock ?? Date.now;
  const lastGoodMs = options.lastGoodMs ?? 15 * 60_000;
  const retryMs = options.retryMs ?? 10_000;
  let last: { price: SolUsd; fetchedAt: number } | undefined;
  let failedAt: number | undefined;
  let round: Promise<SolUsd | null> | undefined;

  const lastGood = () => (last && now() - last.price.at.getTime() <= lastGoodMs ? last.price : null);

  const askAll = async (): Promise<SolUsd | null> => {
    const problems: string[] = [];
    for (const feed of feeds) {
      try {
        const price = await ask(feed, options, now);
        last = { price, fetchedAt: now() };
        failedAt = undefined;
        return price;
      } catch (error) {
        problems.push(`${feed.name}: ${(error as Error).message}`);
      }
    }
    failedAt = now();
    const fallback = lastGood();
    logger.warn('every SOL price feed failed', {
      problems,
      using: fallback ? `last good price from ${fallback.at.toISOString()}` : 'no price',
    });
    return fallback;
  };

  const current = async (): Promise<SolUsd | null> => {
    if (last && now() - last.fetchedAt < options.cacheMs) return last.price;
    if (failedAt !== undefined && now() - failedAt < retryMs) return lastGood();
    round ??= askAll().finally(() => {
      round = undefined;
    });
    return round;
  };
  return { current, solUsd: () => orThrow({ current }) };
};

let cached: PriceSource | undefined;

/** The price source chosen by configuration, created once per container. */
export const priceFromConfig = (): PriceSource => {
  if (cached) return cached;
  const config = settings();
  const source = config.SOL_USD_PRICE_SOURCE;
  // The settings' check makes SOL_USD_PRICE present whenever the source is fixed.
  if (source === 'fixed') {
    cached = fixedPrice(config.SOL_USD_PRICE ?? Number.NaN);
    return cached;
  }
  const baseUrls: Record<PriceFeedName, string> = {
    pyth: config.SOL_USD_PYTH_URL,
    coinbase: config.SOL_USD_COINBASE_URL,
    coingecko: config.SOL_USD_COINGECKO_URL,
  };
  cached = feedsPrice(
    source.map((name) => ({ name, baseUrl: baseUrls[name] })),
    {
      maxAgeMs: config.SOL_USD_MAX_AGE_SECONDS * 1000,
      cacheMs: config.SOL_USD_CACHE_SECONDS * 1000,
      min: config.SOL_USD_PRICE_MIN,
      max: config.SOL_USD_PRICE_MAX,
      allowLoopback: config.SAFE_FETCH_ALLOW_LOOPBACK === 'true',
    },
  );
  return cached;
};
