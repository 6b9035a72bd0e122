// Every page of the studio console in Chromium: its error state shows the API's message and request id when the
// API answers 4xx/5xx (faults injected with page.route), axe-core finds no serious or critical issue, it works
// with the keyboard, and a screenshot at 375 px and at 1280 px is written per page (tests/.artifacts/console).
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArcadiaClient, unwrap } from '../../sdk/src/index.js';
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

let browser: Browser;
let gameId: string;
let endpointId: string;
const name = `pages-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

/**
 * A signed-in tab at `width` px, in a context of its own (axe-core opens pages in it). The first one signs the
 * user in; later ones reuse the token. Contexts stay open until the browser closes: the npm Chromium runs as a
 * single process, which closing a context can end.
 */
let token: string | undefined;
const signedInPage = async (width: number): Promise<Page> => {
  const page = await (
    await browser.newContext({ ...USER_CONTEXT, viewport: { width, height: 900 } })
  ).newPage();
  if (!token) {
    await signIn(page, name);
    token = String(await page.evaluate(`sessionStorage.getItem(${JSON.stringify(TOKEN_KEY)})`));
  } else {
    await page.addInitScript(
      `sessionStorage.setItem(${JSON.stringify(TOKEN_KEY)}, ${JSON.stringify(token)})`,
    );
    await page.goto(consoleUrl());
    await page.getByRole('heading', { level: 1, name: 'Games' }).waitFor();
  }
  return page;
};

/** Each page: its route, heading, the API path whose failure it must show, and what shows it loaded. */
const pages = () => [
  { page: 'games', route: 'games', heading: 'Games', api: '/games/me', ready: 'table' },
  {
    page: 'game-edit',
    route: `games/${gameId}`,
    heading: 'Edit game',
    api: `/games/id/${gameId}`,
    ready: 'form',
  },
  {
    page: 'players',
    route: `players?game=${gameId}&player=x:pagesplayer`,
    heading: 'Players',
    api: `/play/dev/leaderboard/${gameId}`,
    ready: '.player table',
  },
  {
    page: 'integrity',
    route: `integrity?game=${gameId}`,
    heading: 'Integrity',
    api: `/play/dev/risky-sessions/${gameId}`,
    ready: 'table',
  },
  {
    page: 'economy',
    route: `economy?game=${gameId}`,
    heading: 'Economy',
    api: `/rewards/game-rewards-pool/${gameId}`,
    ready: '#settlements-title',
  },
  {
    page: 'coin',
    route: `coin?game=${gameId}`,
    heading: 'Coin',
    api: `/games/id/${gameId}`,
    ready: '#launch-title',
  },
  {
    page: 'webhooks',
    route: `webhooks?game=${gameId}&endpoint=${endpointId}`,
    heading: 'Webhooks',
    api: `/webhooks/${gameId}/endpoints`,
    ready: '#log-title ~ .empty',
  },
  {
    page: 'tournaments',
    route: `tournaments?game=${gameId}`,
    heading: 'Tournaments',
    api: `/tournaments/${gameId}`,
    ready: '#tournaments-title ~ .empty',
  },
];

describe('the studio console pages', () => {
  beforeAll(async () => {
    const bearer = createArcadiaClient({ baseUrl: apiBaseUrl(), bearerToken: await idpToken(name) });
    unwrap(await bearer.GET('/user/me'));
    const { game } = unwrap(
      await bearer.POST('/games', {
        body: {
          name: `Pages ${name}`,
          description: 'A game for the page checks',
          gameUrl: 'https://pages.example/play',
          platform: 'WEB',
          base64Image: dataUri('png', png()),
          maxScorePerSession: 10,
        },
      }),
    );
    gameId = game.id;
    // An endpoint (never sent anything), so that the webhooks page shows its table and its empty delivery log.
    endpointId = unwrap(
      await bearer.POST('/webhooks/{gameId}/endpoints', {
        params: { path: { gameId } },
        body: { url: 'http://localhost:9/hooks', eventTypes: ['launch.failed'] },
      }),
    ).id;
    await bearer.POST('/play/dev/batch-save-points', {
      body: {
        gameId,
        entries: [
          { playerId: 'x:pagesplayer', points: 7, sessionId: 'steady' },
          { playerId: 'x:pagesplayer', points: 40, sessionId: 'spiky' },
          { playerId: 'x:pagesplayer', points: 40, sessionId: 'spiky' },
        ],
      },
    });
  }, 60_000);

  it('signs in from pages (email, then code) that pass axe, at 375 and 1280 px', async () => {
    for (const width of [375, 1280]) {
      const page = await (
        await browser.newContext({ ...USER_CONTEXT, viewport: { width, height: 900 } })
      ).newPage();
      await page.goto(consoleUrl());
      await page.getByRole('heading', { level: 1, name: 'Sign in to the Arcadia console' }).waitFor();
      expect(await seriousAxeFindings(page)).toEqual([]);
      await screenshot(page, 'sign-in');
      // The second step: the code the provider sent (shown from the local provider's inbox).
      await page.getByLabel('Email').fill(`axe-${width}@local`);
      await page.getByRole('button', { name: 'Send a sign-in code' }).click();
      await page.locator('#local-code').waitFor();
      expect(await seriousAxeFindings(page)).toEqual([]);
      await screenshot(page, 'sign-in-code');
    }
  }, 60_000);

  for (const width of [375, 1280]) {
    it(`shows every page with no serious or critical axe finding and no horizontal scroll at ${width} px`, async () => {
      const page = await signedInPage(width);
      for (const p of pages()) {
        await open(page, p.route, p.heading);
        await page.locator(p.ready).first().waitFor({ timeout: 30_000 });
        expect(await page.locator('.error').count(), p.page).toBe(0);
        expect(await seriousAxeFindings(page), p.page).toEqual([]);
        const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - innerWidth'));
        expect(overflow, `${p.page} scrolls sideways`).toBeLessThanOrEqual(0);
        await screenshot(page, p.page);
      }
    }, 120_000);
  }

  it("shows the API's message and request id on every page when the API answers 4xx or 5xx", async () => {
    const page = await signedInPage(1280);
    const api = new URL(apiBaseUrl());
    const faults = [
      { status: 500, code: 'INTERNAL_ERROR' },
      { status: 403, code: 'FORBIDDEN' },
    ];
    for (const p of pages()) {
      for (const fault of faults) {
        const message = `Injected ${fault.status} on ${p.page}`;
        const requestId = `req-${p.page}-${fault.status}`;
        const matches = (url: URL) => url.host === api.host && url.pathname === p.api;
        await page.route(matches, (route) =>
          route.fulfill({
            status: fault.status,
            contentType: 'application/json',
            headers: { 'access-control-allow-origin': '*', 'x-request-id': requestId },
            body: JSON.stringify({ error: { code: fault.code, message, details: [], requestId } }),
          }),
        );
        // A fresh load of the page (the tab keeps its sign-in), so nothing answered before is reused.
        await page.goto('about:blank');
        await page.goto(`${consoleUrl()}#/${p.route}`);
        await page.getByRole('heading', { level: 1, name: p.heading }).waitFor();
        const box = page.locator('.error', { hasText: message }).first();
        await box.waitFor({ timeout: 30_000 });
        expect(await box.locator('.error-message').textContent()).toBe(message);
        expect(await box.locator('.request-id code').textContent()).toBe(requestId);
        expect(await box.getAttribute('role')).toBe('alert');
        if (fault.status === 500) await screenshot(page, `${p.page}-error`);
        await page.unroute(matches);
      }
    }
  }, 120_000);

  it('works with the keyboard: skip link, navigation with a visible focus ring, focus on the new heading', async () => {
    const page = await signedInPage(1280);
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Skip to content');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(
      '({ text: document.activeElement.textContent, outline: getComputedStyle(document.activeElement).outlineStyle })',
    );
    expect(focused).toEqual({ text: 'Players', outline: 'solid' });
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Players' }).waitFor();
    await page.waitForFunction("document.activeElement?.tagName === 'H1'");
    // Every form control of the game form has a label.
    await open(page, `games/${gameId}`, 'Edit game');
    await page.locator('form').first().waitFor();
    const unlabelled = await page.evaluate(
      "[...document.querySelectorAll('input, select, textarea')].filter((el) => !el.labels?.length && " +
        "!el.getAttribute('aria-label')).map((el) => el.outerHTML)",
    );
    expect(unlabelled).toEqual([]);
  }, 60_000);
});
