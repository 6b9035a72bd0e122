import { safeFetch } from '../adapters/safe-fetch.js';
import { settings } from '../core/config.js';
import { logger } from '../core/logger.js';

/** A source of the SOL price in USD. */
export interface PriceSource {
  /** Where prices come from (`fixed` or the feed's host), shown in responses. */
  readonly name: string;
  solUsd(): Promise<number>;
}

/** A fixed price (local development, tests, and deployments without a feed). */
export const fixedPrice = (solUsd: number): PriceSource => ({ name: 'fixed', solUsd: async () => solUsd });

const FRESH_MS = 60_000;
const STALE_MS = 15 * 60_000;

/** Read a dot path (`solana.usd`) out of a JSON value. */
const atPath = (value: unknown, path: string): unknown =>
  path
    .split('.')
    .reduce<unknown>(
      (v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined),
      value,
    );

/** An HTTP JSON feed; `fetchJson` is injectable for tests. */
export const httpPrice = (
  url: string,
  jsonPath: string,
  fetchJson: (url: string) => Promise<unknown> = async (u) => {
    const res = await safeFetch(u, { accept: 'application/json', maxBytes: 64 * 1024, timeoutMs: 3_000 });
    if (res.status !== 200) throw new Error(`price feed answered ${res.status}`);
    return JSON.parse(res.body.toString('utf8'));
  },
  clock: () => number = Date.now,
): PriceSource => {
  let last: { price: number; at: number } | undefined;
  return {
    name: new URL(url).host,
    solUsd: async () => {
      if (last && clock() - last.at < FRESH_MS) return last.price;
      try {
        const price = Number(atPath(await fetchJson(url), jsonPath));
        if (!Number.isFinite(price) || price <= 0) throw new Error(`no positive number at ${jsonPath}`);
        last = { price, at: clock() };
        return price;
      } catch (error) {
        if (last && clock() - last.at < STALE_MS) {
          logger.warn('SOL price feed failed; using the last price', { error: (error as Error).message });
          return last.price;
        }
        throw new Error(`SOL price unavailable: ${(error as Error).message}`, { cause: error });
      }
    },
  };
};

// classic zod's `z.preprocess(fn, schema)` is `pipe(transform(fn), schema)`; zod/mini has no `preprocess`.

/** Default SOL price in USD when SOL_USD_PRICE is not set. */
export const DEFAULT_SOL_USD = 150;

let cached: PriceSource | undefined;

/** The price source chosen by configuration, created once per container. */
export const priceFromConfig = (): PriceSource => {
  if (cached) return cached;
  const config = settings();
  // The settings' check makes SOL_USD_PRICE_URL present whenever the source is http.
  cached =
    config.SOL_USD_PRICE_SOURCE === 'http' && config.SOL_USD_PRICE_URL
      ? httpPrice(config.SOL_USD_PRICE_URL, config.SOL_USD_PRICE_JSON_PATH)
      : fixedPrice(config.SOL_USD_PRICE);
  return cached;
};
