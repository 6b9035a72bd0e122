// The console's overview page (a game's landing page) in Chromium, for a game with a week of activity: players
// saving points on each of the last 8 UTC days (one of them first seen 30 days ago), multiplier sales on two days, a
// settled day's payouts and an invalidated session. Every figure the page shows (the glance table, each chart's data
// table at 30 and at 90 days, the retention summary and cohorts) equals the endpoint's answer the page read, which
// equals a read of its own; a fresh game shows the empty state; a 403 and a network failure show the error state
// with a retry; axe-core finds nothing serious at 375 and 1280 px and nothing scrolls sideways; screenshots go to
// tests/.artifacts/console. The page is a chunk of its own: the first load does not carry it.
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sideEffects as rewardsDeps } from '../../functions/rewards/purchase-multiplier.js';
import { sideEffects as settleDeps } from '../../functions/settlement/settle-game-days.js';
import type { AuthContext } from '../../lib/core/auth.js';
import type { GameInsights } from '../../lib/insights/contracts.js';
import { batchSavePoints } from '../../lib/play/saves/save.js';
import { purchaseMultiplier, settleGameDay } from '../../lib/rewards/index.js';
import { localDirectory } from '../../lib/user/directory.js';
import { ensureUserForSubject } from '../../lib/user/service.js';
import { type ArcadiaClient, createArcadiaClient, unwrap } from '../../sdk/src/index.js';
import { dataUri, png } from '../fixtures/images/build.js';
import { launchBrowser } from '../helpers/browser.js';
import {
  consoleUrl,
  open,
  screenshot,
  seriousAxeFindings,
  signIn,
  TOKEN_KEY,
  USER_CONTEXT,
} from '../helpers/console.js';
import { apiBaseUrl } from '../helpers/http.js';
import { idpToken } from '../helpers/idp.js';
import { newMember, SOL } from '../helpers/settlement.js';

const name = `overview-${randomUUID().slice(0, 8)}`;
const DAY_MS = 86_400_000;
const today = new Date().toISOString().slice(0, 10);
/** The UTC day `n` days before today. */
const ago = (n: number) =>
  new Date(Date.parse(`${today}T00:00:00.000Z`) - n * DAY_MS).toISOString().slice(0, 10);

let browser: Browser;
let bearer: ArcadiaClient;
let token: string;
let gameId: string;
let freshGameId: string;

beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

/** A signed-in tab at `width` px in a context of its own (left open: closing one can end the npm Chromium). */
const signedInPage = async (width: number): Promise<Page> => {
  const page = await (
    await browser.newContext({ ...USER_CONTEXT, viewport: { width, height: 900 } })
  ).newPage();
  await page.addInitScript(`sessionStorage.setItem(${JSON.stringify(TOKEN_KEY)}, ${JSON.stringify(token)})`);
  await page.goto(consoleUrl());
  await page.getByRole('heading', { level: 1, name: 'Games' }).waitFor();
  return page;
};

const registerGame = async (label: string) =>
  unwrap(
    await bearer.POST('/games', {
      body: {
        name: `${label} ${name}`,
        description: 'A game for the overview checks',
        gameUrl: 'https://overview.example/play',
        platform: 'WEB',
        base64Image: dataUri('png', png()),
        maxScorePerSession: 1_000,
      },
    }),
  ).game.id;

/**
 * The week: on each day from 7 days ago to yesterday a steady player, that day's new player and the previous day's
 * new player coming back (D+1), each in sessions of their own; a player first seen 30 days ago; two funded players
 * on yesterday, whose day is then settled (payouts); sales 3 days ago and today; today's saves through the API, with
 * the returns of D+1, D+7 and D+30, and a session then invalidated.
 */
const seedWeek = async (studio: AuthContext) => {
  const saveOn = (day: string, entries: Array<{ playerId: string; points: number; sessionId: string }>) =>
    batchSavePoints(
      studio,
      { gameId, entries },
      { directory: localDirectory, now: () => new Date(`${day}T12:00:00.000Z`) },
    );
  await saveOn(ago(30), [{ playerId: 'x:ov_old', points: 5, sessionId: 'first' }]);
  for (let n = 7; n >= 1; n--) {
    await saveOn(ago(n), [
      { playerId: 'x:ov_steady', points: 10 * n, sessionId: `steady-${n}` },
      { playerId: 'x:ov_steady', points: 3, sessionId: `steady-${n}-bis` },
      { playerId: `x:ov_new_${n}`, points: 20 + n, sessionId: `new-${n}` },
      ...(n < 7 ? [{ playerId: `x:ov_new_${n + 1}`, points: 7, sessionId: `back-${n}` }] : []),
    ]);
  }
  const buyAt = async (at: Date | undefined) => {
    const buyer = await newMember(SOL);
    const bought = await purchaseMultiplier(
      buyer.auth,
      { gameId, tier: '3x', durationSeconds: 86_400, idempotencyKey: randomUUID() },
      at ? { ...rewardsDeps, now: () => at } : rewardsDeps,
    );
    if (bought.status !== 'completed') throw new Error(`purchase ${bought.status}`);
  };
  await buyAt(new Date(`${ago(3)}T09:00:00.000Z`));
  // Yesterday's funded players, paid when the day settles (a settlement's payouts land on its own day: today).
  const paid = await Promise.all([newMember(SOL / 100n), newMember(SOL / 100n)]);
  await saveOn(
    ago(1),
    paid.map((p, i) => ({ playerId: p.arcId, points: 500 - i * 100, sessionId: `paid-${i}` })),
  );
  const settled = await settleGameDay(gameId, ago(1), {
    ...settleDeps,
    now: () => new Date(Math.max(Date.now(), Date.parse(`${today}T07:00:00.000Z`))),
  });
  if (settled.status !== 'settled') throw new Error(`settlement ${settled.status}`);
  await buyAt(undefined);
  unwrap(
    await bearer.POST('/play/dev/batch-save-points', {
      body: {
        gameId,
        entries: [
          { playerId: 'x:ov_steady', points: 9, sessionId: 'steady-0' },
          { playerId: 'x:ov_new_1', points: 4, sessionId: 'back-0' },
          { playerId: 'x:ov_new_7', points: 6, sessionId: 'week-later' },
          { playerId: 'x:ov_old', points: 8, sessionId: 'month-later' },
          { playerId: 'x:ov_today', points: 30, sessionId: 'new-0' },
          { playerId: 'x:ov_today', points: 90, sessionId: 'cheat' },
        ],
      },
    }),
  );
  unwrap(await bearer.POST('/play/dev/invalidate-sessions', { body: { gameId, sessionIds: ['cheat'] } }));
};

// The page's formats, in the test context's locale (en-US).
const count = (n: number) => n.toLocaleString('en-US');
const solText = (lamports: string | bigint) =>
  `${(Number(lamports) / 1e9).toLocaleString('en-US', { maximumFractionDigits: 6 })} SOL`;
const usdText = (cents: number) =>
  (cents / 100).toLocaleString('en-US', { style: 'currency', currency: 'USD' });
const percent = (v: number) => `${v.toLocaleString('en-US', { maximumFractionDigits: 1 })} %`;

type Day = GameInsights['days'][number];
type Cohort = GameInsights['retention'][number];

/** Each figure of the glance table: its row header, one day's value as shown, and the 7 days' as shown. */
const GLANCE: Array<[string, (d: Day) => string, (week: Day[]) => string]> = [
  [
    'Active players',
    (d) => count(d.activePlayers),
    (w) =>
      `${(w.reduce((s, d) => s + d.activePlayers, 0) / w.length).toLocaleString('en-US', { maximumFractionDigits: 1 })} a day`,
  ],
  ['New players', (d) => count(d.newPlayers), (w) => count(w.reduce((s, d) => s + d.newPlayers, 0))],
  [
    'Sessions (backend)',
    (d) => count(d.sessions.backend),
    (w) => count(w.reduce((s, d) => s + d.sessions.backend, 0)),
  ],
  ['Sessions (SDK)', (d) => count(d.sessions.sdk), (w) => count(w.reduce((s, d) => s + d.sessions.sdk, 0))],
  ['Points counted', (d) => count(d.points), (w) => count(w.reduce((s, d) => s + d.points, 0))],
  [
    'Flagged sessions',
    (d) => count(d.flaggedSessions),
    (w) => count(w.reduce((s, d) => s + d.flaggedSessions, 0)),
  ],
  [
    'Invalidated sessions',
    (d) => count(d.invalidatedSessions),
    (w) => count(w.reduce((s, d) => s + d.invalidatedSessions, 0)),
  ],
  ['Multiplier sales', (d) => count(d.sales.count), (w) => count(w.reduce((s, d) => s + d.sales.count, 0))],
  [
    'Sales (SOL)',
    (d) => solText(d.sales.lamports),
    (w) => solText(w.reduce((s, d) => s + BigInt(d.sales.lamports), 0n)),
  ],
  [
    'Sales (USD)',
    (d) => usdText(d.sales.usdCents),
    (w) => usdText(w.reduce((s, d) => s + d.sales.usdCents, 0)),
  ],
  [
    'Payouts (SOL)',
    (d) => solText(d.payouts.lamports),
    (w) => solText(w.reduce((s, d) => s + BigInt(d.payouts.lamports), 0n)),
  ],
  [
    'Payouts (USD)',
    (d) => usdText(d.payouts.usdCents),
    (w) => usdText(w.reduce((s, d) => s + d.payouts.usdCents, 0)),
  ],
  [
    'Players paid',
    (d) => count(d.payouts.players),
    (w) => count(w.reduce((s, d) => s + d.payouts.players, 0)),
  ],
  [
    'Tournament entrants',
    (d) => count(d.tournamentEntrants),
    (w) => count(w.reduce((s, d) => s + d.tournamentEntrants, 0)),
  ],
  [
    'Webhook deliveries failed',
    (d) => count(d.webhookFailures),
    (w) => count(w.reduce((s, d) => s + d.webhookFailures, 0)),
  ],
];

/** Each chart: its title and its series' values as its data table shows them, per day. */
const CHARTS: Array<[string, Array<(d: Day) => string>]> = [
  ['Players', [(d) => count(d.activePlayers), (d) => count(d.newPlayers)]],
  ['Sessions', [(d) => count(d.sessions.backend), (d) => count(d.sessions.sdk)]],
  ['Points counted', [(d) => count(d.points)]],
  ['Revenue and payouts (SOL)', [(d) => solText(d.sales.lamports), (d) => solText(d.payouts.lamports)]],
  ['Revenue and payouts (USD)', [(d) => usdText(d.sales.usdCents), (d) => usdText(d.payouts.usdCents)]],
  ['Players paid', [(d) => count(d.payouts.players)]],
  ['Integrity', [(d) => count(d.flaggedSessions), (d) => count(d.invalidatedSessions)]],
  ['Tournaments and webhooks', [(d) => count(d.tournamentEntrants), (d) => count(d.webhookFailures)]],
];

const RETAINED: Array<(c: Cohort) => number | null> = [(c) => c.day1, (c) => c.day7, (c) => c.day30];
const rate = (kept: number | null, players: number) => (kept === null ? null : (100 * kept) / players);

/** The rows of a table as text, one array of cells per row (header cells included). */
const rowsOf = async (rows: Locator) =>
  Promise.all((await rows.all()).map((row) => row.locator('th, td').allTextContents()));

const chartRows = (page: Page, title: string) =>
  rowsOf(
    page
      .locator('figure.chart')
      .filter({
        has: page.locator('figcaption', { hasText: new RegExp(`^${title.replace(/[()]/g, '\\$&')}$`) }),
      })
      .locator('table.visually-hidden tbody tr'),
  );

/** Opens the overview of `game` and answers the insights the page read (its request and the answer's body). */
const openOverview = async (page: Page, game: string) => {
  const answered = page.waitForResponse(
    (r) => r.url().includes(`/games/insights/${game}`) && r.request().method() === 'GET',
  );
  await open(page, `overview?game=${game}`, 'Overview');
  const response = await answered;
  expect(response.status()).toBe(200);
  const url = new URL(response.url());
  const body = (await response.json()) as { data: GameInsights };
  return {
    query: { from: url.searchParams.get('from') ?? '', to: url.searchParams.get('to') ?? '' },
    insights: body.data,
  };
};

/** What the page must show for `insights` over the last `range` days. */
const expectFigures = async (page: Page, insights: GameInsights, range: number) => {
  const first = ago(range - 1);
  const days = insights.days.filter((d) => d.day >= first);
  expect(days).toHaveLength(range);
  for (const [title, series] of CHARTS)
    expect(await chartRows(page, title), `${title} over ${range} days`).toEqual(
      days.map((d) => [d.day, ...series.map((of) => of(d))]),
    );
  const cohorts = insights.retention.filter((c) => c.cohort >= first);
  // The retention chart: a point per day of the range, a gap (–) on a day without a cohort or not reached yet.
  const byCohort = new Map(cohorts.map((c) => [c.cohort, c]));
  expect(await chartRows(page, 'Retention by cohort (%)')).toEqual(
    days.map((d) => {
      const c = byCohort.get(d.day);
      return [
        d.day,
        ...RETAINED.map((of) => {
          const r = c ? rate(of(c), c.players) : null;
          return r === null ? '–' : percent(r);
        }),
      ];
    }),
  );
  // The summary: the players kept over the players of the cohorts whose day has come.
  const summary = RETAINED.map((of) => {
    const known = cohorts.filter((c) => of(c) !== null);
    const players = known.reduce((s, c) => s + c.players, 0);
    return players === 0
      ? 'not reached yet'
      : percent((100 * known.reduce((s, c) => s + (of(c) ?? 0), 0)) / players);
  });
  expect(await page.locator('#retention-summary dd').allTextContents()).toEqual(summary);
  // The cohorts table, newest first, by pages of 10: the first page.
  expect(await rowsOf(page.locator('#cohorts tbody tr'))).toEqual(
    [...cohorts]
      .reverse()
      .slice(0, 10)
      .map((c) => [
        c.cohort,
        count(c.players),
        ...RETAINED.map((of) => {
          const kept = of(c);
          const r = rate(kept, c.players);
          return kept === null || r === null ? '–' : `${count(kept)} (${percent(r)})`;
        }),
      ]),
  );
};

describe('the console overview page', () => {
  beforeAll(async () => {
    // The user signs in through the console (as a studio does), and registers its games with the same identity.
    const first = await (
      await browser.newContext({ ...USER_CONTEXT, viewport: { width: 1280, height: 900 } })
    ).newPage();
    await signIn(first, name);
    token = String(await first.evaluate(`sessionStorage.getItem(${JSON.stringify(TOKEN_KEY)})`));
    bearer = createArcadiaClient({ baseUrl: apiBaseUrl(), bearerToken: await idpToken(name) });
    const subject = `did:local:${name}`;
    const studio: AuthContext = { scheme: 'bearer', userId: await ensureUserForSubject(subject), subject };
    gameId = await registerGame('Overview');
    freshGameId = await registerGame('Fresh');
    await seedWeek(studio);
  }, 180_000);

  it('is a chunk of its own, opened from the navigation, with focus on its heading and a game to choose', async () => {
    const page = await (
      await browser.newContext({ ...USER_CONTEXT, viewport: { width: 1280, height: 900 } })
    ).newPage();
    const scripts: string[] = [];
    page.on('request', (r) => r.resourceType() === 'script' && scripts.push(new URL(r.url()).pathname));
    await page.addInitScript(
      `sessionStorage.setItem(${JSON.stringify(TOKEN_KEY)}, ${JSON.stringify(token)})`,
    );
    await page.goto(consoleUrl());
    await page.getByRole('heading', { level: 1, name: 'Games' }).waitFor();
    expect(scripts.some((s) => /\/assets\/overview-/.test(s))).toBe(false);
    const entry = scripts.find((s) => /\/assets\/index-/.test(s)) ?? '';
    const firstLoad = Buffer.from(await (await fetch(new URL(entry, consoleUrl()))).arrayBuffer());
    expect(firstLoad.toString('utf8')).not.toContain('Today at a glance');
    expect(gzipSync(firstLoad, { level: 9 }).length).toBeLessThan(30_000);

    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.waitForFunction("document.activeElement?.tagName === 'H1'");
    expect(scripts.some((s) => /\/assets\/overview-/.test(s))).toBe(true);
    await page.getByRole('combobox', { name: 'Game' }).selectOption(gameId);
    await page.locator('table.glance').waitFor({ timeout: 30_000 });
    expect(new URL(page.url()).hash).toBe(`#/overview?game=${gameId}`);
    // The game's other pages are one link away, its edit form too.
    const links = page.getByRole('navigation', { name: 'This game' }).getByRole('link');
    expect(await links.allTextContents()).toEqual([
      'Players',
      'Integrity',
      'Economy',
      'Coin',
      'Webhooks',
      'Tournaments',
      'Game clients',
      'Edit the game',
    ]);
    await page
      .getByRole('navigation', { name: 'This game' })
      .getByRole('link', { name: 'Edit the game' })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Edit game' }).waitFor();
  }, 60_000);

  it("shows every figure of the week as the endpoint answers it: today, yesterday, 7 days, 30 and 90 days' charts, retention", async () => {
    const page = await signedInPage(1280);
    const { query, insights } = await openOverview(page, gameId);
    // The page read the last 90 days ending today, and what it read is what the endpoint answers.
    expect(query).toEqual({ from: ago(89), to: today });
    expect(insights).toEqual(
      unwrap(await bearer.GET('/games/insights/{gameId}', { params: { path: { gameId }, query } })),
    );
    // The seeded week is in it: players on each of its 8 days, the sales, the payouts, D+1, D+7 and D+30 returns.
    const byDay = new Map(insights.days.map((d) => [d.day, d]));
    for (let n = 0; n <= 7; n++) expect(byDay.get(ago(n))?.activePlayers, ago(n)).toBeGreaterThan(0);
    expect(insights.days.reduce((s, d) => s + d.sales.count, 0)).toBe(2);
    expect(insights.days.reduce((s, d) => s + d.payouts.players, 0)).toBeGreaterThan(0);
    const cohort = (n: number) => insights.retention.find((c) => c.cohort === ago(n));
    expect(cohort(2)?.day1).toBeGreaterThan(0);
    expect(cohort(7)?.day7).toBeGreaterThan(0);
    expect(cohort(30)?.day30).toBeGreaterThan(0);

    await page.locator('table.glance').waitFor({ timeout: 30_000 });
    const week = insights.days.filter((d) => d.day >= ago(6));
    expect(week).toHaveLength(7);
    const todayRow = byDay.get(today);
    const yesterdayRow = byDay.get(ago(1));
    if (!todayRow || !yesterdayRow) throw new Error('today or yesterday missing from the answer');
    expect(await rowsOf(page.locator('table.glance tbody tr'))).toEqual(
      GLANCE.map(([label, day, seven]) => [label, day(todayRow), day(yesterdayRow), seven(week)]),
    );
    await expectFigures(page, insights, 30);
    await page.getByLabel('Last 90 days').check();
    await expectFigures(page, insights, 90);
  }, 90_000);

  for (const width of [375, 1280]) {
    it(`passes axe and fits a ${width} px screen, with the charts drawn`, async () => {
      const page = await signedInPage(width);
      await openOverview(page, gameId);
      await page.locator('#cohorts').waitFor({ timeout: 30_000 });
      // Every chart drawn (uPlot loads with the first one): 8 day charts and the retention chart.
      await expect.poll(() => page.locator('figure.chart canvas').count(), { timeout: 15_000 }).toBe(9);
      expect(await page.locator('.error').count()).toBe(0);
      expect(await seriousAxeFindings(page)).toEqual([]);
      const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - innerWidth'));
      expect(overflow, 'the page scrolls sideways').toBeLessThanOrEqual(0);
      // The glance table fits too (it would scroll inside its box otherwise).
      const glance = Number(
        await page.evaluate(
          "(() => { const w = document.querySelector('table.glance').closest('.table-wrap'); return w.scrollWidth - w.clientWidth; })()",
        ),
      );
      expect(glance, 'the glance table scrolls sideways').toBeLessThanOrEqual(0);
      await screenshot(page, 'overview');
      await page.getByLabel('Last 90 days').check();
      await expect.poll(() => page.locator('figure.chart canvas').count(), { timeout: 15_000 }).toBe(9);
      expect(await seriousAxeFindings(page)).toEqual([]);
      await screenshot(page, 'overview-90-days');
    }, 90_000);
  }

  it('shows the empty state for a game nobody has played', async () => {
    for (const width of [375, 1280]) {
      const page = await signedInPage(width);
      const { insights } = await openOverview(page, freshGameId);
      expect(insights.retention).toEqual([]);
      expect(insights.days.every((d) => d.activePlayers === 0 && d.sales.count === 0)).toBe(true);
      const empty = page.locator('.empty', { hasText: 'Nothing has happened in this game' });
      await empty.waitFor({ timeout: 30_000 });
      expect(await page.locator('figure.chart').count()).toBe(0);
      expect(await page.locator('table.glance').count()).toBe(0);
      expect(await seriousAxeFindings(page)).toEqual([]);
      await screenshot(page, 'overview-empty');
    }
  }, 60_000);

  it("shows the API's refusal and a network failure with a retry that recovers", async () => {
    const page = await signedInPage(1280);
    const api = new URL(apiBaseUrl());
    const matches = (url: URL) => url.host === api.host && url.pathname === `/games/insights/${gameId}`;
    const message = 'Injected 403 on the overview';
    await page.route(matches, (route) =>
      route.fulfill({
        status: 403,
        contentType: 'application/json',
        headers: { 'access-control-allow-origin': '*', 'x-request-id': 'req-overview-403' },
        body: JSON.stringify({
          error: { code: 'FORBIDDEN', message, details: [], requestId: 'req-overview-403' },
        }),
      }),
    );
    await open(page, `overview?game=${gameId}`, 'Overview');
    const box = page.getByRole('alert');
    await box.waitFor({ timeout: 30_000 });
    expect(await box.locator('.error-message').textContent()).toBe(message);
    expect(await box.locator('.request-id code').textContent()).toBe('req-overview-403');
    expect(await box.textContent()).toContain('FORBIDDEN (HTTP 403)');
    expect(await seriousAxeFindings(page)).toEqual([]);
    await screenshot(page, 'overview-error');
    await page.unroute(matches);

    // The network gone: the error box again (no API answer to show), then Retry reads the figures.
    await page.route(matches, (route) => route.abort('internetdisconnected'));
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.getByRole('alert').filter({ hasNotText: message }).waitFor({ timeout: 30_000 });
    expect(await page.locator('table.glance').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Retry' }).count()).toBe(1);
    await page.unroute(matches);
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.locator('table.glance').waitFor({ timeout: 30_000 });
    expect(await page.getByRole('alert').count()).toBe(0);
  }, 60_000);
});
