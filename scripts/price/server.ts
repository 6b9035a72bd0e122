// Local SOL/USD price stand-in for development and tests: answers the public feeds' price endpoints in each feed's
// own response format, at a price a developer or a test sets, so that the API's real price code (SSRF-safe fetch,
// parsing, staleness and sanity checks, fallback order, cache) runs locally instead of a fixed price.
//
//   GET /v2/prices/SOL-USD/spot                  Coinbase: {"data": {"amount": "150", "base": "SOL", "currency": "USD"}}
//   GET /api/v3/simple/price?ids=solana&vs_currencies=usd[&include_last_updated_at=true]
//                                                CoinGecko: {"solana": {"usd": 150, "last_updated_at": <unix s>}}
//   GET /v2/updates/price/latest?ids[]=<feed id>[&parsed=true]
//                                                Pyth Hermes: {"binary": {"encoding", "data"}, "parsed": [{"id",
//                                                "price": {"price", "conf", "expo", "publish_time"}, "ema_price",
//                                                "metadata"}]}
//
// Local-only endpoints:
//   PUT  /local/price  {"usd"?: 151.5, "ageSeconds"?: 0, "down"?: ["coinbase"]}  the price from now on, how old
//                      the feeds say it is, and which feeds answer 503 → the state
//   GET  /local/price  → {"usd", "ageSeconds", "down", "requests": {"pyth", "coinbase", "coingecko"}}
//
// Every path may start with /scope/<name>/: a scope has its own state (150 USD until set), so that a test that
// changes the price runs beside tests that expect the default, each pointing its price URLs at its own scope.
//
// Standalone: `tsx scripts/price/server.ts --port 8092`

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { parseArgs } from 'node:util';
import * as z from 'zod/mini';
import { closeServer, listen } from '../stack/http-server.js';
import { runStandIn } from '../stack/process.js';

/** The price every scope starts at: the USD figures the tests expect. */
export const LOCAL_SOL_USD = 150;
const FEEDS = ['pyth', 'coinbase', 'coingecko'] as const;
type Feed = (typeof FEEDS)[number];

interface ScopeState {
  usd: number;
  ageSeconds: number;
  down: Feed[];
  requests: Record<Feed, number>;
}

const PriceUpdate = z.object({
  usd: z.optional(z.number().check(z.positive())),
  ageSeconds: z.optional(z.int().check(z.gte(0))),
  down: z.optional(z.array(z.enum(FEEDS))),
});

export interface LocalPrice {
  url: string;
  stop(): Promise<void>;
}

const sendJson = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

const readBody = async (req: IncomingMessage): Promise<unknown> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  return text === '' ? {} : JSON.parse(text);
};

/** Pyth's integer mantissa at exponent -8, as Hermes prints it (a string). */
const PYTH_EXPO = -8;
const mantissa = (usd: number) => BigInt(Math.round(usd * 10 ** -PYTH_EXPO)).toString();

const answers: Record<Feed, (state: ScopeState, url: URL) => unknown> = {
  coinbase: (s) => ({ data: { amount: String(s.usd), base: 'SOL', currency: 'USD' } }),
  coingecko: (s, url) => ({
    solana: {
      usd: s.usd,
      ...(url.searchParams.get('include_last_updated_at') === 'true'
        ? { last_updated_at: Math.floor(Date.now() / 1000) - s.ageSeconds }
        : {}),
    },
  }),
  pyth: (s, url) => {
    const publishTime = Math.floor(Date.now() / 1000) - s.ageSeconds;
    const price = {
      price: mantissa(s.usd),
      conf: mantissa(s.usd * 0.0005),
      expo: PYTH_EXPO,
      publish_time: publishTime,
    };
    const parsed = url.searchParams.getAll('ids[]').map((id) => ({
      id: id.replace(/^0x/, '').toLowerCase(),
      price,
      ema_price: price,
      metadata: { slot: null, proof_available_time: publishTime, prev_publish_time: publishTime - 1 },
    }));
    return url.searchParams.get('parsed') === 'false'
      ? { binary: { encoding: 'hex', data: [] } }
      : { binary: { encoding: 'hex', data: [] }, parsed };
  },
};

const feedOf = (path: string): Feed | undefined => {
  if (path === '/v2/prices/SOL-USD/spot') return 'coinbase';
  if (path === '/api/v3/simple/price') return 'coingecko';
  if (path === '/v2/updates/price/latest') return 'pyth';
  return undefined;
};

/** Starts the stand-in on `port` (0: any free port). */
export const startLocalPrice = async (opts: { port: number; host?: string }): Promise<LocalPrice> => {
  const host = opts.host ?? '127.0.0.1';
  const scopes = new Map<string, ScopeState>();
  const scope = (name: string): ScopeState => {
    let state = scopes.get(name);
    if (!state) {
      state = {
        usd: LOCAL_SOL_USD,
        ageSeconds: 0,
        down: [],
        requests: { pyth: 0, coinbase: 0, coingecko: 0 },
      };
      scopes.set(name, state);
    }
    return state;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const scoped = /^\/scope\/([A-Za-z0-9_-]{1,64})(\/.*)$/.exec(url.pathname);
    const state = scope(scoped?.[1] ?? '');
    const path = scoped?.[2] ?? url.pathname;
    if (path === '/local/price') {
      if (req.method === 'GET') return sendJson(res, 200, state);
      if (req.method !== 'PUT') return sendJson(res, 405, { error: `${req.method} is not allowed` });
      const parsed = z.safeParse(PriceUpdate, await readBody(req));
      if (!parsed.success) return sendJson(res, 400, { error: 'usd, ageSeconds or down is invalid' });
      Object.assign(
        state,
        Object.fromEntries(Object.entries(parsed.data).filter(([, v]) => v !== undefined)),
      );
      return sendJson(res, 200, state);
    }
    const feed = feedOf(path);
    if (!feed || req.method !== 'GET') return sendJson(res, 404, { error: `No route ${path}` });
    state.requests[feed]++;
    if (state.down.includes(feed)) return sendJson(res, 503, { error: `${feed} is down (PUT /local/price)` });
    return sendJson(res, 200, answers[feed](state, url));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 400, { error: (error as Error).message });
      else res.destroy();
    });
  });
  const port = await listen(server, opts.port, host);
  return {
    url: `http://${host}:${port}`,
    stop: () => closeServer(server),
  };
};

const main = async () => {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '8092' } } });
  const price = await startLocalPrice({ port: Number(values.port) });
  console.log(`local SOL/USD price stand-in on ${price.url} (${LOCAL_SOL_USD} USD until PUT /local/price)`);
  return price;
};

runStandIn(import.meta.url, main);
