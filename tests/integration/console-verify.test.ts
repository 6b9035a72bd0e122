// The console verifies payout runs in the browser: a settled day on the economy page and a paid prize period on
// the tournaments page show ✓ Verified with the same checks the SDK's verifyStatement gives in Node for the same
// run, read through the console server's same-origin relay to the local chain (which forwards only the verifier's
// two reads). The verifier loads on the first "Verify" only; a failing RPC shows an error; a run paid before
// statements existed shows that it has none. Screenshots and axe-core at 375 and 1280 px.
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as getDay } from '../../functions/rewards/get-day-statement.js';
import { handler as getPrize } from '../../functions/rewards/get-prize-statement.js';
import { sideEffects as settleDeps } from '../../functions/settlement/settle-game-days.js';
import { dynamo } from '../../lib/adapters/dynamodb.js';
import { settlementKeys, settlementTable } from '../../lib/rewards/settlement/keys.js';
import { settleGameDay } from '../../lib/rewards/settlement/settle.js';
import { type PublishedRun, verifyStatement } from '../../sdk/src/statements.js';
import { launchBrowser } from '../helpers/browser.js';
import {
  consoleUrl,
  open,
  screenshot,
  seriousAxeFindings,
  signIn,
  USER_CONTEXT,
} from '../helpers/console.js';
import { invoke } from '../helpers/http.js';
import { close, type Fixture, fixture } from '../helpers/prizes.js';

const rpcUrl = () => process.env.SOLANA_RPC_URL ?? '';

let browser: Browser;
let page: Page;
let f: Fixture;
const scripts: string[] = [];

const dayRun = async (): Promise<PublishedRun> => {
  const { gameId, day } = f.seeded;
  const res = await invoke<{ data: PublishedRun }>(getDay, {
    method: 'GET',
    path: `/rewards/statements/${gameId}/days/${day}`,
    pathParameters: { gameId, day },
  });
  expect(res.status).toBe(200);
  return res.body.data;
};

const prizeRun = async (): Promise<PublishedRun> => {
  const res = await invoke<{ data: PublishedRun }>(getPrize, {
    method: 'GET',
    path: '/',
    pathParameters: { gameId: f.seeded.gameId, tournamentId: f.tournamentId, periodId: f.periodId },
  });
  expect(res.status).toBe(200);
  return res.body.data;
};

/** The check names `verifyStatement` gives in Node for the run, all passing. */
const nodeChecks = async (run: PublishedRun) => {
  const result = await verifyStatement(run, rpcUrl(), { vault: f.seeded.vaultAddress });
  expect(result.checks.filter((c) => !c.ok)).toEqual([]);
  return result.checks.map((c) => c.name);
};

const economyRoute = () => `economy?game=${f.seeded.gameId}`;
const tournamentRoute = () =>
  `tournaments?game=${f.seeded.gameId}&tournament=${f.tournamentId}&period=${encodeURIComponent(f.periodId)}`;

/** Opens the day's settlement and presses its Verify. */
const verifyDay = async () => {
  await open(page, economyRoute(), 'Economy');
  const settlement = page.locator('details', { has: page.locator('summary', { hasText: f.seeded.day }) });
  await settlement.locator('summary').first().click();
  await settlement.getByRole('button', { name: `Verify the run of ${f.seeded.day}` }).click();
  return settlement;
};

/** The verification's badge, the checks' names in order and each one's mark, once it has finished. */
const shown = async (scope: ReturnType<Page['locator']>) => {
  const badge = scope.locator('.verification .badge');
  await badge.waitFor({ timeout: 60_000 });
  const checks = scope.getByRole('list', { name: 'Checks' });
  await scope.locator('.verification summary').click();
  await checks.waitFor();
  const items = await checks.locator('li').all();
  return {
    badge: (await badge.textContent()) ?? '',
    names: await Promise.all(items.map(async (li) => (await li.locator('code').textContent()) ?? '')),
    marks: await Promise.all(items.map(async (li) => (await li.locator('.mark').textContent()) ?? '')),
  };
};

beforeAll(async () => {
  // A game whose day is settled (a daily run on the local chain) and whose tournament period ended two hours ago
  // and paid its prizes (the tournaments page reads the results with the real clock).
  const start = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 - 3 * 3_600_000);
  f = await fixture({ start });
  const settled = await settleGameDay(f.seeded.gameId, f.seeded.day, {
    ...settleDeps,
    now: () => f.seeded.after,
  });
  expect(settled.status).toBe('settled');
  expect(await close(f, new Date())).toBe('closed');
  browser = await launchBrowser();
  page = await (
    await browser.newContext({ ...USER_CONTEXT, viewport: { width: 1280, height: 900 } })
  ).newPage();
  page.on('request', (r) => r.resourceType() === 'script' && scripts.push(new URL(r.url()).pathname));
  await signIn(page, f.seeded.dev.subject.replace(/^did:local:/, ''));
}, 240_000);
afterAll(async () => {
  await browser?.close();
});

describe('the console server’s RPC relay', () => {
  const relay = (body: string, method = 'POST') =>
    fetch(new URL('rpc', consoleUrl()), {
      method,
      headers: { 'content-type': 'application/json' },
      ...(method === 'POST' ? { body } : {}),
    });
  const call = (method: string, params: unknown[]) =>
    JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });

  it('passes the verifier’s two reads through to the local chain', async () => {
    const run = await dayRun();
    const signature = run.commitment?.signature ?? '';
    const tx = await relay(
      call('getTransaction', [signature, { encoding: 'json', commitment: 'confirmed' }]),
    );
    expect(tx.status).toBe(200);
    const body = (await tx.json()) as { result: { transaction: { signatures: string[] } } };
    expect(body.result.transaction.signatures[0]).toBe(signature);
    const history = await relay(call('getSignaturesForAddress', [f.seeded.vaultAddress, { limit: 5 }]));
    expect(history.status).toBe(200);
    expect(((await history.json()) as { result: unknown[] }).result.length).toBeGreaterThan(0);
  });

  it('refuses every other method, a batch, a body that is not JSON or too large, and anything but POST', async () => {
    for (const body of [
      call('getBalance', [f.seeded.vaultAddress]),
      call('sendTransaction', ['AAAA']),
      call('requestAirdrop', [f.seeded.vaultAddress, 1]),
      `[${call('getTransaction', ['x'])}]`,
      'not json',
      JSON.stringify({ jsonrpc: '2.0', id: 1 }),
    ]) {
      const res = await relay(body);
      expect(res.status, body).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toBeTruthy();
    }
    const big = await relay(call('getTransaction', ['x'.repeat(20_000)]));
    expect(big.status).toBe(413);
    expect((await relay('', 'GET')).status).toBe(404);
  });

  it('is named in the console’s config', async () => {
    const config = (await (await fetch(new URL('config.json', consoleUrl()))).json()) as { rpcUrl?: string };
    expect(config.rpcUrl).toBe('rpc');
  });
});

describe('the console verifies payout runs', () => {
  it('verifies a settled day on the economy page, with the checks the SDK gives in Node', async () => {
    const run = await dayRun();
    const expected = await nodeChecks(run);
    expect(expected).toContain('commitment');
    // Neither the verification nor the verifier is loaded before the first Verify.
    expect(scripts.some((s) => /\/assets\/(verify|statements)-/.test(s))).toBe(false);
    const settlement = await verifyDay();
    const seen = await shown(settlement);
    expect(seen.badge).toBe('✓ Verified');
    expect(seen.names).toEqual(expected);
    expect(seen.marks.every((m) => m === '✓')).toBe(true);
    expect(scripts.some((s) => /\/assets\/verify-/.test(s))).toBe(true);
    expect(scripts.some((s) => /\/assets\/statements-/.test(s))).toBe(true);
    // The root and its commitment on chain, linked to the explorer.
    expect(await settlement.locator('.verification .mono').first().getAttribute('title')).toBe(run.root);
    const link = settlement.locator('.verification a').first();
    expect(decodeURIComponent((await link.getAttribute('href')) ?? '')).toContain(run.commitment?.signature);
    for (const width of [375, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      expect(await seriousAxeFindings(page), `at ${width}`).toEqual([]);
      await screenshot(page, 'economy-verified');
    }
  }, 120_000);

  it('verifies a paid prize period on the tournaments page', async () => {
    const run = await prizeRun();
    expect(run.kind).toBe('prize');
    const expected = await nodeChecks(run);
    await open(page, tournamentRoute(), 'Tournaments');
    const results = page.locator('section[aria-labelledby="results-title"]');
    await results
      .getByRole('button', { name: `Verify the prizes of the period from ${f.periodId}` })
      .click({ timeout: 30_000 });
    const seen = await shown(results);
    expect(seen.badge).toBe('✓ Verified');
    expect(seen.names).toEqual(expected);
    for (const width of [375, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      expect(await seriousAxeFindings(page), `at ${width}`).toEqual([]);
      await screenshot(page, 'tournaments-verified');
    }
  }, 120_000);

  it('shows the error when the chain cannot be read, and verifies on a retry', async () => {
    await page.route('**/console/rpc', (route) =>
      route.fulfill({ status: 502, contentType: 'application/json', body: '{"error":{"message":"down"}}' }),
    );
    const settlement = await verifyDay();
    const alert = settlement.getByRole('alert');
    await alert.waitFor({ timeout: 30_000 });
    expect(await alert.textContent()).toContain('the RPC answered getTransaction with 502');
    expect(await seriousAxeFindings(page)).toEqual([]);
    await screenshot(page, 'economy-verify-error');
    await page.unroute('**/console/rpc');
    await alert.getByRole('button', { name: 'Retry' }).click();
    expect((await shown(settlement)).badge).toBe('✓ Verified');
  }, 120_000);

  it('says a run paid before statements existed has none', async () => {
    // As the runs paid before statements existed are stored: no statement, no root, no commitment.
    const TableName = settlementTable();
    const { gameId, day } = f.seeded;
    await dynamo().send(new DeleteCommand({ TableName, Key: settlementKeys.statement(gameId, day) }));
    await dynamo().send(
      new UpdateCommand({
        TableName,
        Key: settlementKeys.settlement(gameId, day),
        UpdateExpression: 'REMOVE statement',
      }),
    );
    await dynamo().send(new DeleteCommand({ TableName, Key: settlementKeys.commitment(gameId, day) }));
    expect(await dayRun()).toMatchObject({ statement: null, root: null, commitment: null });
    await page.reload();
    const settlement = await verifyDay();
    const none = settlement.locator('.verification .empty');
    await none.waitFor({ timeout: 30_000 });
    expect(await none.textContent()).toBe('No statement: this run was paid before statements existed.');
    expect(await settlement.locator('.verification .badge').count()).toBe(0);
    for (const width of [375, 1280]) {
      await page.setViewportSize({ width, height: 900 });
      expect(await seriousAxeFindings(page), `at ${width}`).toEqual([]);
      await screenshot(page, 'economy-no-statement');
    }
  }, 120_000);
});
