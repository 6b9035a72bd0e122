// USD figures through the local stack's SOL/USD price stand-in (scripts/price/server.ts): the API's real price path
// (settings, SSRF-safe fetch, the feeds' formats, fallback, failure behaviour), not a fixed price. A test that changes
// the price does it in its own scope of the stand-in, so that the other test files keep their 150 USD.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { priceLamports, usdOf } from '../../lib/rewards/pricing.js';
import { registerGame } from '../helpers/games.js';
import type { Handler } from '../helpers/http.js';
import { apiBaseUrl, invoke } from '../helpers/http.js';
import { idpToken } from '../helpers/idp.js';
import { createDeveloper } from '../helpers/users.js';

type CostBody = {
  data: { lamports: string; usd: number | null; solUsdPrice: number | null; priceSource: string | null };
};
type PoolBody = {
  data: { balanceUsd: number | null; solUsdPrice: number | null; priceSource: string | null };
};

let gameId: string;
const lamports = priceLamports({ tier: '2x', durationSeconds: 3_600, competitors: 0 });
/** The stack's stand-in, as the functions' environment names it before a test points them at a scope. */
const STAND_IN = process.env.SOL_USD_COINBASE_URL ?? '';
const standIn = () => {
  if (!STAND_IN.startsWith('http://127.0.0.1:'))
    throw new Error('the test stack did not start the price stand-in');
  return STAND_IN;
};

beforeAll(async () => {
  gameId = (await registerGame(await createDeveloper())).id;
});

describe('the local stack', () => {
  it('serves USD figures from its price stand-in through serverless offline, not from a fixed price', async () => {
    const res = await fetch(`${apiBaseUrl()}/multiplier/cost?gameId=${gameId}&tier=2x&durationSeconds=3600`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as CostBody).data).toEqual(
      expect.objectContaining({
        lamports: lamports.toString(),
        usd: usdOf(lamports, 150),
        solUsdPrice: 150,
        priceSource: 'coinbase',
      }),
    );
  });
});

describe('a price change at the feeds', () => {
  const saved = { ...process.env };
  let scope: string;
  /** The functions' modules loaded afresh, their feeds pointed at `scope` of the stand-in, without a cache. */
  const load = async (name: string) => {
    scope = `${name}-${randomUUID().slice(0, 8)}`;
    vi.resetModules();
    Object.assign(process.env, {
      SOL_USD_COINBASE_URL: `${standIn()}/scope/${scope}`,
      SOL_USD_COINGECKO_URL: `${standIn()}/scope/${scope}/api/v3`,
      SOL_USD_CACHE_SECONDS: '0',
    });
    const cost = (await import('../../functions/rewards/get-multiplier-cost.js')).handler as Handler;
    const pool = (await import('../../functions/rewards/get-game-rewards-pool.js')).handler as Handler;
    const purchase = await import('../../functions/rewards/purchase-multiplier.js');
    return { cost, pool, purchase };
  };
  const setPrice = async (body: Record<string, unknown>) => {
    const res = await fetch(`${standIn()}/scope/${scope}/local/price`, {
      method: 'PUT',
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
  };
  const costOf = (handler: Handler) =>
    invoke<CostBody>(handler, {
      method: 'GET',
      path: '/multiplier/cost',
      query: { gameId, tier: '2x', durationSeconds: '3600' },
    });
  const poolOf = (handler: Handler) =>
    invoke<PoolBody>(handler, {
      method: 'GET',
      path: `/rewards/game-rewards-pool/${gameId}`,
      pathParameters: { gameId },
    });

  afterAll(() => {
    process.env = saved;
  });

  it('changes the USD figures the API shows; a feed down hands over to the next; all down keeps the last good price', async () => {
    const { cost, pool } = await load('change');
    expect((await costOf(cost)).body.data).toMatchObject({ usd: usdOf(lamports, 150), solUsdPrice: 150 });
    await setPrice({ usd: 180 });
    expect((await costOf(cost)).body.data).toMatchObject({
      usd: usdOf(lamports, 180),
      solUsdPrice: 180,
      priceSource: 'coinbase',
    });
    expect((await poolOf(pool)).body.data).toMatchObject({ solUsdPrice: 180, priceSource: 'coinbase' });
    await setPrice({ usd: 175, down: ['coinbase'] });
    expect((await costOf(cost)).body.data).toMatchObject({
      usd: usdOf(lamports, 175),
      priceSource: 'coingecko',
    });
    // Every feed down: the last good price (minutes old at most) still answers.
    await setPrice({ usd: 999, down: ['coinbase', 'coingecko'] });
    const outage = await costOf(cost);
    expect(outage.status).toBe(200);
    expect(outage.body.data).toMatchObject({ usd: usdOf(lamports, 175), priceSource: 'coingecko' });
  });

  it('without any price: the read views answer 200 with null USD figures, a purchase 503 before anything is stored', async () => {
    const { cost, pool, purchase } = await load('down');
    await setPrice({ down: ['coinbase', 'coingecko'] });
    const quote = await costOf(cost);
    expect(quote.status).toBe(200);
    expect(quote.body.data).toMatchObject({
      lamports: lamports.toString(),
      usd: null,
      solUsdPrice: null,
      priceSource: null,
    });
    const view = await poolOf(pool);
    expect(view.status).toBe(200);
    expect(view.body.data).toMatchObject({ balanceUsd: null, solUsdPrice: null, priceSource: null });

    const name = `price-${randomUUID().slice(0, 8)}`;
    const { ensureUserForSubject } = await import('../../lib/user/index.js');
    const { getPurchase } = await import('../../lib/rewards/repository.js');
    const arcId = await ensureUserForSubject(`did:local:${name}`);
    const idempotencyKey = randomUUID();
    const refused = await invoke<{ error: { code: string } }>(purchase.handler as Handler, {
      method: 'POST',
      path: '/multiplier/purchase',
      headers: { authorization: `Bearer ${await idpToken(name)}` },
      body: { gameId, tier: '2x', durationSeconds: 3_600, idempotencyKey },
    });
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('PRICE_UNAVAILABLE');
    expect(refused.headers['retry-after']).toBe('30');
    expect(await getPurchase(arcId, idempotencyKey)).toBeUndefined();
  });
});
