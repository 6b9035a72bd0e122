// The studio console used end to end in Chromium against the local stack, as a new studio would: sign in,
// register a game with an image, save points from the SDK, find the player on the leaderboard (by the name the
// studio gave them, the Arc ID one click away), invalidate a risky session and see its points leave, see a
// purchase in the pool chart, launch a coin to 100 %, and run a webhook endpoint: register a local receiver, send
// the test event, see it in the delivery log, redeliver it.
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeChain } from '../../lib/chain/index.js';
import { coinEmissionDeps, settleCoinEmission } from '../../lib/snapshots/index.js';
import { ensureUserForSubject } from '../../lib/user/service.js';
import { loadWallet } from '../../lib/user/wallet.js';
import { fetchLocalToken } from '../../scripts/token.js';
import { createArcadiaClient, unwrap } from '../../sdk/src/index.js';
import { paddedPng } from '../fixtures/images/build.js';
import { launchBrowser } from '../helpers/browser.js';
import {
  consoleUrl,
  open,
  revealArcId,
  rowCells,
  screenshot,
  signIn,
  TOKEN_KEY,
  USER_CONTEXT,
} from '../helpers/console.js';
import { apiBaseUrl } from '../helpers/http.js';
import { idpToken, idpUrl } from '../helpers/idp.js';
import {
  type Receiver,
  startDeliveryWorker,
  startReceiver,
  verifiedPayloads,
  waitFor,
} from '../helpers/webhooks.js';

const SOL = 1_000_000_000n;
const chain = makeChain({ rpcUrl: process.env.SOLANA_RPC_URL ?? '', pollMs: 50 });

let browser: Browser;
let page: Page;
const name = `studio-${randomUUID().slice(0, 8)}`;
let keys: { apiKey: string; secretKey: string };
let gameId: string;
let cheaterArcId: string;
const cheater = `x:cheat${randomUUID().slice(0, 6)}`;
const cheaterName = 'Sneaky Pete';
const neighbour = `x:calm${randomUUID().slice(0, 6)}`;
const errors: string[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
  page = await (
    await browser.newContext({ ...USER_CONTEXT, viewport: { width: 1280, height: 900 } })
  ).newPage();
  page.on('pageerror', (error) => errors.push(error.message));
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

describe('the studio console', () => {
  it('refuses a wrong sign-in code with the provider’s message, then signs a new user in and shows their first secret once', async () => {
    await page.goto(consoleUrl());
    await page.getByLabel('Email').fill(`${name}@local`);
    await page.getByRole('button', { name: 'Send a sign-in code' }).click();
    const sent = (await page.locator('#local-code code').textContent()) ?? '';
    await page.getByLabel('Code').fill(sent === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Invalid email and code combination');
    expect(await page.evaluate(`sessionStorage.getItem(${JSON.stringify(TOKEN_KEY)})`)).toBeNull();

    const shown = await signIn(page, name);
    keys = { apiKey: shown.apiKey ?? '', secretKey: shown.secretKey ?? '' };
    expect(keys.apiKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys.secretKey).toMatch(/^arc_sk_/);
    // The console keeps the sign-in token for the tab, never the secret.
    const stored = String(await page.evaluate('JSON.stringify({ ...sessionStorage, ...localStorage })'));
    expect(stored).not.toContain(keys.secretKey);
  }, 60_000);

  it('swaps a token about to expire for the provider session’s before calling the API', async () => {
    const key = JSON.stringify(TOKEN_KEY);
    const fromSignIn = String(await page.evaluate(`sessionStorage.getItem(${key})`));
    // A token of the same user with 30 s left, as the tab would hold it an hour after signing in.
    const expiring = (await fetchLocalToken(name, idpUrl(), 30)).token;
    await page.evaluate(`sessionStorage.setItem(${key}, ${JSON.stringify(expiring)})`);
    await open(page, 'webhooks', 'Webhooks');
    // The page's first call asked the provider's client, which answered its session's token (an hour left).
    await expect.poll(() => page.evaluate(`sessionStorage.getItem(${key})`)).toBe(fromSignIn);
    await open(page, 'games', 'Games');
  }, 60_000);

  it('registers a game with an image uploaded through the upload URL, with a progress bar', async () => {
    await page.getByRole('link', { name: 'Register a game' }).click();
    await page.getByRole('heading', { level: 1, name: 'Register a game' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill(`Console Game ${name}`);
    await page.getByLabel('Description').fill('Registered from the studio console');
    await page.getByLabel('Game URL').fill('https://console-game.example/play');
    await page.getByLabel(/^Image/).setInputFiles({
      name: 'thumb.png',
      mimeType: 'image/png',
      buffer: paddedPng(300_000),
    });
    await page.getByLabel('Max score per session').fill('10');
    // The split editor's total is live; an incomplete split keeps the form from being sent.
    await page.getByRole('button', { name: 'Add recipient' }).click();
    await page.getByLabel('Recipient 1', { exact: true }).fill(`did:local:${name}`);
    await page.getByLabel('Basis points for recipient 1').fill('6000');
    expect(await page.locator('#split-total').textContent()).toContain('6,000 bp — must be exactly 10 000');
    expect(await page.getByRole('button', { name: 'Register the game' }).isDisabled()).toBe(true);
    await page.getByLabel('Basis points for recipient 1').fill('10000');
    expect(await page.locator('#split-total').textContent()).toBe('Total: 10,000 bp');
    await page.getByRole('button', { name: 'Register the game' }).click();
    await page.getByRole('heading', { level: 1, name: 'Edit game' }).waitFor({ timeout: 30_000 });
    gameId = /#\/games\/([0-9a-f-]{36})/.exec(page.url())?.[1] ?? '';
    expect(gameId).toMatch(/^[0-9a-f-]{36}$/);
    await page.getByText('Registered.').waitFor();
    // The ownership check shows the exact tag to paste.
    expect(await page.locator('#meta-tag').textContent()).toBe(
      `<meta name="arcadia-verification" content="${keys.apiKey}">`,
    );
    await screenshot(page, 'game-edit');

    const game = unwrap(
      await createArcadiaClient({ baseUrl: apiBaseUrl() }).GET('/games/id/{id}', {
        params: { path: { id: gameId } },
      }),
    );
    expect(game).toMatchObject({
      maxScorePerSession: 10,
      creatorId: await ensureUserForSubject(`did:local:${name}`),
    });
    expect(game.imageUrl).toMatch(/^https?:\/\//);
  }, 90_000);

  it('shows on the leaderboard page the player whose points the SDK saved', async () => {
    const server = createArcadiaClient({ baseUrl: apiBaseUrl(), hmac: keys });
    const saved = unwrap(
      await server.POST('/play/dev/batch-save-points', {
        body: {
          gameId,
          entries: [
            { playerId: cheater, points: 8, sessionId: 'calm' },
            { playerId: cheater, points: 50, sessionId: 'greedy' },
            { playerId: cheater, points: 50, sessionId: 'greedy' },
            { playerId: neighbour, points: 5, sessionId: 'steady' },
          ],
        },
      }),
    );
    cheaterArcId = saved.playerIdToArcId[cheater] ?? '';
    unwrap(
      await server.PUT('/play/dev/players/{gameId}/name', {
        params: { path: { gameId } },
        body: { playerId: cheater, displayName: cheaterName },
      }),
    );
    await open(page, `players?game=${gameId}`, 'Players');
    // Listed as the studio knows the player: the display name, with the identifier it saved under; the Arc ID one
    // click away.
    const board = page.getByRole('region', { name: 'Today (UTC)' });
    const row = board.locator('tbody tr').first();
    await row.getByRole('link', { name: cheaterName }).waitFor({ timeout: 30_000 });
    expect(await rowCells(row)).toEqual(['1', cheaterName, '18']);
    expect(await row.locator('.hint').textContent()).toBe(` (${cheater})`);
    expect(await revealArcId(row)).toBe(cheaterArcId);

    await page.getByLabel(/^Find a player/).fill(cheater);
    await page.getByRole('button', { name: 'Find' }).click();
    const player = page.locator('.player');
    await player.getByText('points today').waitFor();
    expect(await player.locator('p').first().textContent()).toContain('18 points today');
    // Its neighbour below, by the identifier the studio saved it under (it has no display name).
    const below = player.getByRole('list', { name: 'Neighbours today (utc)' }).locator('li');
    await below.first().waitFor();
    expect(await below.locator('.player-name > :first-child').allTextContents()).toEqual([neighbour]);
    expect(await revealArcId(below)).toBe(saved.playerIdToArcId[neighbour]);

    // The name links to the player's page, found by the studio's identifier.
    await open(page, `players?game=${gameId}`, 'Players');
    await board.getByRole('link', { name: cheaterName }).click();
    await player.getByText('points today').waitFor();
    expect(await player.locator('h2').textContent()).toBe(`Player ${cheater}`);
  }, 60_000);

  it('invalidates a risky session after confirmation, says what it removed, and the points leave', async () => {
    await open(page, `integrity?game=${gameId}`, 'Integrity');
    const row = page.locator('tr', { hasText: 'greedy' });
    await row.waitFor({ timeout: 30_000 });
    expect(await row.textContent()).toContain('cap_hit');
    // Times in the user's zone (Europe/Paris here), UTC on hover.
    const time = row.locator('time');
    const utc = (await time.getAttribute('datetime')) ?? '';
    expect(await time.getAttribute('title')).toBe(`${utc.replace('T', ' ').slice(0, 19)} UTC`);
    expect(await time.textContent()).toBe(
      new Intl.DateTimeFormat('en-US', {
        dateStyle: 'medium',
        timeStyle: 'short',
        timeZone: 'Europe/Paris',
      }).format(new Date(utc)),
    );
    await row.getByRole('button', { name: 'Invalidate session greedy' }).click();
    await row.getByRole('button', { name: /^Confirm: remove 10 points/ }).click();
    const removal = page.locator('#removal');
    await removal.waitFor();
    expect(await removal.textContent()).toContain(
      `Invalidated session greedy of player ${cheaterArcId}: removed 10 points`,
    );

    await open(page, `players?game=${gameId}&player=${encodeURIComponent(cheater)}`, 'Players');
    await page.locator('.player').getByText('points today').waitFor();
    expect(await page.locator('.player p').first().textContent()).toContain('8 points today');
    const board = page.getByRole('region', { name: 'Today (UTC)' });
    await board.locator('tbody tr').first().waitFor();
    expect(await rowCells(board.locator('tbody tr').first())).toEqual(['1', cheaterName, '8']);
  }, 60_000);

  it('shows a purchase seeded by a player in the pool chart and the multiplier sales', async () => {
    const buyerName = `buyer-${randomUUID().slice(0, 8)}`;
    const buyerToken = await idpToken(buyerName);
    const buyerWallet =
      (await loadWallet(await ensureUserForSubject(`did:local:${buyerName}`)))?.address ?? '';
    await chain.airdrop(buyerWallet, SOL);
    const bought = unwrap(
      await createArcadiaClient({ baseUrl: apiBaseUrl(), bearerToken: buyerToken }).POST(
        '/multiplier/purchase',
        {
          body: { gameId, tier: '2x', durationSeconds: 3_600, idempotencyKey: randomUUID() },
        },
      ),
    );

    const historyPath = `/rewards/game-rewards-pool/${gameId}/history`;
    const historyAnswer = page.waitForResponse(
      (r) => new URL(r.url()).pathname === historyPath && r.request().method() === 'GET',
    );
    await open(page, `economy?game=${gameId}`, 'Economy');
    const history = (await (await historyAnswer).json()) as {
      data: Array<{ day: string; inflowLamports: string; endOfDay: { balanceLamports: string } }>;
    };
    const today = new Date().toISOString().slice(0, 10);
    expect(history.data.map((d) => [d.day, d.inflowLamports, d.endOfDay.balanceLamports])).toEqual([
      [today, bought.lamports, bought.lamports],
    ]);
    const chart = page.locator('figure.chart', { hasText: 'Rewards pool (SOL)' });
    await chart.waitFor({ timeout: 30_000 });
    // uPlot arrives with the first chart.
    await chart.locator('canvas').waitFor();
    // The chart's data table (its text alternative) has the history's one day: the purchase paid in, nothing
    // paid out, the books' balance.
    const paid = `${(Number(bought.lamports) / 1e9).toLocaleString('en-US', { maximumFractionDigits: 4 })} SOL`;
    const rows = chart.locator('table.visually-hidden tbody tr');
    expect(await rows.count()).toBe(1);
    expect(await rows.first().locator('td').allTextContents()).toEqual([today, paid, '0 SOL', paid]);
    expect(await page.getByText(/^The last 180 days \(UTC\)/).count()).toBe(1);
    const sale = page.locator('#sales tbody tr').first();
    expect(await sale.textContent()).toContain('×2 for 1 h');
    expect(await sale.locator('.amount').getAttribute('title')).toBe(
      `${BigInt(bought.lamports ?? '0').toLocaleString('en-US')} lamports`,
    );
    expect(await sale.locator('a').last().getAttribute('href')).toContain(
      `https://explorer.solana.com/tx/${bought.signature}?cluster=custom`,
    );

    // The history failing: its error state (the API's message and request id) where the chart was, the rest of
    // the page still shown.
    const failing = (url: URL) => url.pathname === historyPath;
    await page.route(failing, (route) =>
      route.fulfill({
        status: 500,
        contentType: 'application/json',
        headers: { 'access-control-allow-origin': '*', 'x-request-id': 'req-history-500' },
        body: JSON.stringify({
          error: {
            code: 'INTERNAL_ERROR',
            message: 'Injected history fault',
            details: [],
            requestId: 'req-history-500',
          },
        }),
      }),
    );
    await page.reload();
    const box = page.locator('.error', { hasText: 'Injected history fault' });
    await box.waitFor({ timeout: 30_000 });
    expect(await box.locator('.request-id code').textContent()).toBe('req-history-500');
    expect(await page.locator('figure.chart', { hasText: 'Rewards pool (SOL)' }).count()).toBe(0);
    await page.locator('#sales tbody tr').first().waitFor();
    await page.unroute(failing);
  }, 90_000);

  it('launches a coin and the progress bar reaches 100 %', async () => {
    const wallet = (await loadWallet(await ensureUserForSubject(`did:local:${name}`)))?.address ?? '';
    await chain.airdrop(wallet, SOL);
    await open(page, `coin?game=${gameId}`, 'Coin');
    await page.getByText('This game has no coin yet.').waitFor({ timeout: 30_000 });
    await page.getByLabel('Initial buy in SOL (optional)').fill('0.01');
    await page.getByRole('button', { name: 'Launch', exact: true }).click();
    const bar = page.getByRole('progressbar', { name: 'Launch progress' });
    await bar.waitFor();
    const seen = new Set<string>();
    for (let i = 0; i < 120; i++) {
      const value = (await bar.getAttribute('value')) ?? '0';
      seen.add(value);
      if (value === '100') break;
      await page.waitForTimeout(500);
    }
    expect(await bar.getAttribute('value'), `progress seen: ${[...seen].join(', ')}`).toBe('100');
    expect(await page.getByText(/^Launched: mint/).count()).toBe(1);
    // The coin's status and emission schedule replace the empty state once the game is read again.
    await page.getByRole('heading', { level: 2, name: /\(active\)$/ }).waitFor({ timeout: 30_000 });
    await page.locator('figure.chart', { hasText: 'Emission schedule' }).waitFor();
    await page.getByText(/over 0 settled days\./).waitFor({ timeout: 30_000 });
    await screenshot(page, 'coin-launched');
    // The launch day settles: the chart's emitted line follows GET /token-launcher/emission, up to that day only.
    const settled = await settleCoinEmission(
      { gameId, day: new Date().toISOString().slice(0, 10), players: [{ userId: 'p1', wallet, points: 10 }] },
      coinEmissionDeps(),
    );
    expect(settled.status).toBe('settled');
    await page.reload();
    await page.getByText(/over 1 settled day\./).waitFor({ timeout: 30_000 });
    const table = page
      .locator('figure.chart', { hasText: 'Emission schedule' })
      .locator('table.visually-hidden');
    expect(await table.locator('thead th').allTextContents()).toContain('Emitted (cumulative)');
    const emittedCell = (row: number) =>
      table.locator('tbody tr').nth(row).locator('td').nth(2).textContent();
    expect(await emittedCell(0)).toBe('0');
    expect(await emittedCell(1)).not.toBe('–');
    expect(await emittedCell(2)).toBe('–');
  }, 120_000);

  it('resets the secret: the new one is shown once, with a copy button, and signs requests', async () => {
    await open(page, 'games', 'Games');
    await page.getByRole('button', { name: 'Reset secret…' }).click();
    await page.getByRole('button', { name: 'Reset the secret' }).click();
    const secret = page.locator('#secret-value');
    await secret.waitFor();
    const secretKey = (await secret.textContent()) ?? '';
    expect(secretKey).toMatch(/^arc_sk_/);
    expect(secretKey).not.toBe(keys.secretKey);
    expect(await page.getByRole('button', { name: 'Copy secret key' }).isEnabled()).toBe(true);
    await page.getByRole('button', { name: 'I stored it' }).click();
    expect(await secret.count()).toBe(0);
    const stored = String(await page.evaluate('JSON.stringify({ ...sessionStorage, ...localStorage })'));
    expect(stored).not.toContain(secretKey);
    const server = createArcadiaClient({ baseUrl: apiBaseUrl(), hmac: { apiKey: keys.apiKey, secretKey } });
    expect(unwrap(await server.GET('/user/me')).apiKey).toBe(keys.apiKey);
    expect(errors).toEqual([]);
  }, 60_000);

  it('registers a webhook endpoint at a local receiver, sends the test event and sees it in the delivery log', async () => {
    // The delivery worker runs in this process on the stack's queue (the test stack runs no queue consumers).
    const worker = await startDeliveryWorker();
    let receiver: Receiver | undefined;
    try {
      receiver = await startReceiver();
      const r = receiver;
      await open(page, `webhooks?game=${gameId}`, 'Webhooks');
      await page.getByText('No endpoints yet').waitFor({ timeout: 30_000 });
      await page.getByLabel('Endpoint URL').fill(r.url);
      await page.getByLabel('session.flagged').check();
      await page.getByLabel('launch.completed').check();
      await page.getByRole('button', { name: 'Register endpoint' }).click();
      // The signing secret, shown once with a copy button.
      const shown = page.locator('#signing-secret-value');
      await shown.waitFor({ timeout: 30_000 });
      const secret = (await shown.textContent()) ?? '';
      expect(secret).toMatch(/^whsec_/);
      expect(await page.getByRole('button', { name: 'Copy signing secret' }).isEnabled()).toBe(true);
      await page.getByRole('button', { name: 'I stored it' }).click();
      expect(await shown.count()).toBe(0);
      const row = page.locator('tr', { hasText: r.url });
      await row.waitFor();
      expect(await row.locator('.endpoint-status').textContent()).toBe('Enabled');
      await screenshot(page, 'webhooks-registered');

      // The test event reaches the receiver, signed with the secret the page showed (standardwebhooks verifies).
      await page.getByRole('button', { name: `Send test to ${r.url}` }).click();
      await waitFor(() => r.received.length === 1, 30_000, 'the test event at the receiver');
      const [test] = verifiedPayloads(r, secret);
      expect(test).toMatchObject({ type: 'webhook.test', gameId });
      // …and in the delivery log (the page reloads it shortly after sending).
      const log = page.locator('section', { has: page.getByRole('heading', { name: 'Delivery log' }) });
      const delivered = log
        .locator('tr', { hasText: 'webhook.test' })
        .filter({ hasText: 'Delivered (HTTP 200)' });
      await delivered.first().waitFor({ timeout: 30_000 });
      await screenshot(page, 'webhooks-log');

      // Redeliver it: the same webhook-id again, and a second attempt in the log.
      await log.getByRole('button', { name: `Redeliver webhook.test ${test?.id}` }).click();
      await waitFor(() => r.received.length === 2, 15_000, 'the redelivery');
      expect(verifiedPayloads(r, secret).map((p) => p.id)).toEqual([test?.id, test?.id]);
      await delivered.nth(1).waitFor({ timeout: 30_000 });

      // Disable and enable it again; rotate its secret (the new one shown once); delete it after confirmation.
      await page.getByRole('button', { name: `Disable ${r.url}` }).click();
      await row.locator('.endpoint-status', { hasText: 'Disabled' }).waitFor();
      await page.getByRole('button', { name: `Enable ${r.url}` }).click();
      await row.locator('.endpoint-status', { hasText: 'Enabled' }).waitFor();
      await page.getByRole('button', { name: `Rotate secret of ${r.url}` }).click();
      await shown.waitFor();
      const rotated = (await shown.textContent()) ?? '';
      expect(rotated).toMatch(/^whsec_/);
      expect(rotated).not.toBe(secret);
      await page.getByRole('button', { name: 'I stored it' }).click();
      await page.getByRole('button', { name: `Delete ${r.url}…` }).click();
      await page.getByRole('button', { name: 'Delete endpoint' }).click();
      await page.getByText('No endpoints yet').waitFor();
      const stored = String(await page.evaluate('JSON.stringify({ ...sessionStorage, ...localStorage })'));
      expect(stored).not.toContain(secret);
      expect(stored).not.toContain(rotated);
      expect(errors).toEqual([]);
    } finally {
      await worker.stop();
      await receiver?.close();
    }
  }, 120_000);
});
