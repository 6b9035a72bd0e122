// The SOL price from public feeds: order, staleness, sanity bounds, cache, and what happens when every feed fails.
// Real HTTP through the SSRF-safe fetch against the local price stand-in (each test in its own scope) and, for
// hostile answers the stand-in never gives, small servers in this process.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PriceFeedName } from '../../lib/core/config.js';
import {
  type FeedsOptions,
  feedsPrice,
  fixedPrice,
  PriceUnavailable,
  PYTH_SOL_USD_FEED_ID,
} from '../../lib/rewards/price.js';
import { type LocalPrice, startLocalPrice } from '../../scripts/price/server.js';

let stand: LocalPrice;
beforeAll(async () => {
  stand = await startLocalPrice({ port: 0 });
});
afterAll(() => stand.stop());

let scopes = 0;
/** A fresh scope of the stand-in: its own price, age, outages and request counts. */
const newScope = () => {
  const base = `${stand.url}/scope/t${++scopes}`;
  const control = async (body: Record<string, unknown>) => {
    const res = await fetch(`${base}/local/price`, { method: 'PUT', body: JSON.stringify(body) });
    expect(res.status).toBe(200);
  };
  const requests = async () =>
    ((await (await fetch(`${base}/local/price`)).json()) as { requests: Record<PriceFeedName, number> })
      .requests;
  const feed = (name: PriceFeedName) => ({
    name,
    baseUrl: name === 'coingecko' ? `${base}/api/v3` : base,
  });
  return { control, requests, feed };
};

const OPTIONS: FeedsOptions = {
  maxAgeMs: 120_000,
  cacheMs: 30_000,
  min: 1,
  max: 10_000,
  allowLoopback: true,
};

/** A clock that a test moves forward (feeds stamp their answers with the real time). */
const movableClock = () => {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    advance: (ms: number) => {
      offset += ms;
    },
  };
};

/** A server in this process answering every request with `answer`. */
const hostile = async (
  answer: (url: URL) => { status: number; body: string; headers?: Record<string, string> },
) => {
  const server: Server = createServer((req, res) => {
    const { status, body, headers } = answer(new URL(req.url ?? '/', 'http://localhost'));
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

describe('order', () => {
  it('takes the first feed that answers, in the configured order, each in its own format', async () => {
    const s = newScope();
    await s.control({ usd: 151.25 });
    for (const name of ['coinbase', 'coingecko', 'pyth'] as const) {
      const price = await feedsPrice([s.feed(name)], OPTIONS).current();
      expect(price).toMatchObject({ usd: 151.25, source: name });
    }
    const source = feedsPrice([s.feed('pyth'), s.feed('coinbase'), s.feed('coingecko')], OPTIONS);
    expect(await source.current()).toMatchObject({ usd: 151.25, source: 'pyth' });
    expect(await s.requests()).toEqual({ pyth: 2, coinbase: 1, coingecko: 1 });
  });

  it('falls through a feed that is down to the next one', async () => {
    const s = newScope();
    await s.control({ usd: 142, down: ['coinbase'] });
    const price = await feedsPrice([s.feed('coinbase'), s.feed('coingecko')], OPTIONS).current();
    expect(price).toMatchObject({ usd: 142, source: 'coingecko' });
  });
});

describe('staleness', () => {
  it("refuses an answer older than the bound by the feed's own timestamp; a feed without one counts as fresh", async () => {
    const s = newScope();
    await s.control({ ageSeconds: 300 });
    const stale = feedsPrice([s.feed('pyth'), s.feed('coingecko')], OPTIONS);
    expect(await stale.current()).toBeNull();
    const price = await feedsPrice(
      [s.feed('pyth'), s.feed('coingecko'), s.feed('coinbase')],
      OPTIONS,
    ).current();
    expect(price).toMatchObject({ usd: 150, source: 'coinbase' });
    await s.control({ ageSeconds: 60 });
    const fresh = await feedsPrice([s.feed('pyth')], OPTIONS).current();
    expect(fresh?.source).toBe('pyth');
    // The price carries the feed's time, not the time it was fetched.
    expect(Date.now() - (fresh?.at.getTime() ?? 0)).toBeGreaterThanOrEqual(59_000);
  });

  it('refuses a timestamp in the future (a feed claiming freshness it cannot have)', async () => {
    const future = await hostile(() => ({
      status: 200,
      body: JSON.stringify({ solana: { usd: 150, last_updated_at: Math.floor(Date.now() / 1000) + 3600 } }),
    }));
    try {
      expect(
        await feedsPrice([{ name: 'coingecko', baseUrl: future.baseUrl }], OPTIONS).current(),
      ).toBeNull();
    } finally {
      await future.close();
    }
  });
});

describe('sanity bounds', () => {
  it('refuses a price outside the bounds like a feed that is down, and takes the next feed', async () => {
    const wild = await hostile(() => ({
      status: 200,
      body: JSON.stringify({ data: { amount: '1500000', base: 'SOL', currency: 'USD' } }),
    }));
    const s = newScope();
    try {
      const source = feedsPrice([{ name: 'coinbase', baseUrl: wild.baseUrl }, s.feed('coingecko')], OPTIONS);
      expect(await source.current()).toMatchObject({ usd: 150, source: 'coingecko' });
      await s.control({ usd: 0.5 });
      const low = feedsPrice([s.feed('coinbase'), s.feed('coingecko'), s.feed('pyth')], OPTIONS);
      expect(await low.current()).toBeNull();
    } finally {
      await wild.close();
    }
  });

  it('refuses answers of the wrong shape, pair, confidence or size', async () => {
    const now = Math.floor(Date.now() / 1000);
    const pyth = (conf: string) => ({
      parsed: [
        {
          id: PYTH_SOL_USD_FEED_ID,
          price: { price: '15000000000', conf, expo: -8, publish_time: now },
        },
      ],
    });
    const cases: Array<[PriceFeedName, string]> = [
      ['coinbase', JSON.stringify({ data: { amount: '150', base: 'BTC', currency: 'USD' } })],
      ['coinbase', JSON.stringify({ data: { amount: 150, base: 'SOL', currency: 'USD' } })],
      ['coinbase', JSON.stringify({ data: { amount: '1e2', base: 'SOL', currency: 'USD' } })],
      ['coingecko', JSON.stringify({ solana: { usd: '150', last_updated_at: now } })],
      ['coingecko', JSON.stringify({ solana: { usd: 150 } })],
      ['pyth', JSON.stringify(pyth('600000000'))], // ± 6 USD on 150: 4 %
      ['pyth', JSON.stringify({ parsed: [{ ...pyth('1').parsed[0], id: 'ff'.repeat(32) }] })],
      ['coinbase', 'not json'],
      [
        'coinbase',
        `{"data":{"amount":"150","base":"SOL","currency":"USD","pad":"${'x'.repeat(64 * 1024)}"}}`,
      ],
    ];
    for (const [name, body] of cases) {
      const server = await hostile(() => ({ status: 200, body }));
      try {
        const price = await feedsPrice([{ name, baseUrl: server.baseUrl }], OPTIONS).current();
        expect(price, `${name}: ${body.slice(0, 80)}`).toBeNull();
      } finally {
        await server.close();
      }
    }
    // The same Pyth answer with a tight confidence interval is taken.
    const good = await hostile(() => ({ status: 200, body: JSON.stringify(pyth('7500000')) }));
    try {
      expect(await feedsPrice([{ name: 'pyth', baseUrl: good.baseUrl }], OPTIONS).current()).toMatchObject({
        usd: 150,
        source: 'pyth',
      });
    } finally {
      await good.close();
    }
  });
});

describe('safe fetch', () => {
  it('reaches a loopback feed only where loopback is allowed, and follows no redirect to an internal address', async () => {
    const s = newScope();
    const { allowLoopback: _, ...production } = OPTIONS;
    expect(await feedsPrice([s.feed('coinbase')], production).current()).toBeNull();
    expect(await s.requests()).toEqual({ pyth: 0, coinbase: 0, coingecko: 0 });
    const redirect = await hostile(() => ({
      status: 302,
      body: '',
      headers: { location: 'http://169.254.169.254/latest/meta-data/' },
    }));
    try {
      expect(
        await feedsPrice([{ name: 'coinbase', baseUrl: redirect.baseUrl }], OPTIONS).current(),
      ).toBeNull();
    } finally {
      await redirect.close();
    }
  });
});

describe('cache', () => {
  it('reuses a good price for the cache time, sharing one request among concurrent callers', async () => {
    const s = newScope();
    const clock = movableClock();
    const source = feedsPrice([s.feed('coinbase')], { ...OPTIONS, clock: clock.now });
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => source.current()));
    expect(answers.every((a) => a?.usd === 150)).toBe(true);
    await s.control({ usd: 160 });
    clock.advance(29_000);
    expect((await source.current())?.usd).toBe(150);
    expect((await s.requests()).coinbase).toBe(1);
    clock.advance(2_000);
    expect((await source.current())?.usd).toBe(160);
    expect((await s.requests()).coinbase).toBe(2);
  });
});

describe('when every feed fails', () => {
  it('answers the last good price for 15 minutes from its time, then null; solUsd() throws instead', async () => {
    const s = newScope();
    const clock = movableClock();
    const source = feedsPrice([s.feed('coinbase'), s.feed('coingecko')], { ...OPTIONS, clock: clock.now });
    expect(await source.current()).toMatchObject({ usd: 150, source: 'coinbase' });
    await s.control({ usd: 170, down: ['coinbase', 'coingecko'] });
    clock.advance(60_000);
    expect(await source.current()).toMatchObject({ usd: 150, source: 'coinbase' });
    expect(await source.solUsd()).toBe(150);
    // The feeds are not asked again for 10 s after they all failed.
    const before = await s.requests();
    clock.advance(5_000);
    await source.current();
    expect(await s.requests()).toEqual(before);
    clock.advance(15 * 60_000);
    expect(await source.current()).toBeNull();
    await expect(source.solUsd()).rejects.toBeInstanceOf(PriceUnavailable);
    // A feed back up is used at once after the pause (coinbase: its answers carry no time of their own, and this
    // clock runs 16 minutes ahead of the stand-in's).
    await s.control({ down: ['coingecko'] });
    clock.advance(11_000);
    expect(await source.current()).toMatchObject({ usd: 170, source: 'coinbase' });
  });

  it('answers null without a last good price (never a made-up one)', async () => {
    const s = newScope();
    await s.control({ down: ['pyth', 'coinbase', 'coingecko'] });
    const source = feedsPrice([s.feed('pyth'), s.feed('coinbase'), s.feed('coingecko')], OPTIONS);
    expect(await source.current()).toBeNull();
    await expect(source.solUsd()).rejects.toThrow(/SOL price unavailable/);
  });
});

describe('fixed price', () => {
  it('answers the price the deployer set, as `fixed`', async () => {
    expect(await fixedPrice(150).current()).toMatchObject({ usd: 150, source: 'fixed' });
    expect(await fixedPrice(150).solUsd()).toBe(150);
  });
});
