// The demo game (/demo on the demo server the stack starts) played end to end in Chromium: sign in with the local
// identity provider, catch stars, commit; the page shows the points, the rank and today's top 10 the leaderboard
// holds, read with its session token, and the demo's hourly tournament: a countdown, Join, and its board.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { devLeaderboard } from '../../lib/play/index.js';
import { flushHash } from '../../lib/play/protocol.js';
import { ensureUserForSubject } from '../../lib/user/service.js';
import { launchBrowser, launchNpmChromium } from '../helpers/browser.js';

const demoUrl = () => {
  const url = process.env.DEMO_URL;
  if (!url) throw new Error('DEMO_URL is not set: the test stack did not start the demo server');
  return url;
};

describe('the demo game', () => {
  it('is played in Chromium: the points, rank and top 10 it shows are those of the leaderboard', async () => {
    const name = `demo-${randomUUID().slice(0, 8)}`;
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      const apiAuthorizations: string[] = [];
      page.on('request', (request) => {
        const authorization = request.headers().authorization;
        if (authorization) apiAuthorizations.push(authorization);
      });
      await page.goto(demoUrl());
      // The page enables sign-in once it has the demo game's config (the first visit registers the game).
      await page.waitForSelector('#sign-in-button:not([disabled])', { timeout: 30_000 });
      await page.fill('#name', name);
      await page.click('#sign-in-button');
      await page
        .waitForSelector('#start:not([disabled])', { state: 'visible', timeout: 30_000 })
        .catch(async (error: Error) => {
          throw new Error(`${error.message}\npage log: ${await page.textContent('#log')}`);
        });
      expect(await page.textContent('#subject')).toBe(`did:local:${name}`);
      await page.click('#start');
      await page.waitForSelector('#star', { state: 'visible' });
      // The demo's tournament, running since the demo server set it up: the time to its period's end, counting down.
      await page.waitForSelector('#tournament', { state: 'visible', timeout: 30_000 });
      expect(await page.textContent('#t-when')).toBe('Ends in');
      const countdownBefore = await page.textContent('#t-countdown');
      expect(countdownBefore).toMatch(/^(1:)?\d{2}:\d{2}$/);
      await page.click('#join');
      await page.waitForSelector('#join:text("Joined")', { timeout: 30_000 });
      // Six catches over ~2.5 s: several paced flushes, then the rest at the end.
      for (let i = 0; i < 6; i++) {
        await page.click('#star');
        await page.waitForTimeout(400);
      }
      expect(await page.textContent('#score')).toBe('60');
      expect(await page.textContent('#t-countdown')).not.toBe(countdownBefore);
      await page.click('#end');
      await page.waitForFunction("document.querySelector('#rank').textContent !== '–'", null, {
        timeout: 30_000,
      });
      expect(await page.textContent('#log')).toBe('Run saved: 60 points.');
      expect(await page.textContent('#points')).toBe('60');
      const shownRank = Number((await page.textContent('#rank'))?.replace('#', ''));
      const top = await page.$$eval('#top li', (rows) =>
        rows.map((row) => ({
          rank: Number(row.getAttribute('value')),
          text: row.textContent,
          me: row.className === 'me',
        })),
      );
      // The run counted in the tournament the player joined: its board shows the player's row.
      await page.waitForSelector('#t-top li.me', { timeout: 30_000 });
      const tournamentRow = await page.$eval('#t-top li.me', (row) => row.textContent);
      expect(tournamentRow).toBe(`${name} · 60`);
      expect(errors).toEqual([]);
      // The page never held a developer key: every API call it made carried its player's tokens.
      expect(apiAuthorizations.every((a) => a.startsWith('Bearer '))).toBe(true);
      expect(apiAuthorizations.length).toBeGreaterThan(0);

      const { gameId } = (await (await fetch(`${demoUrl()}/config`)).json()) as { gameId: string };
      const owner = await ensureUserForSubject('did:local:demo-studio');
      const board = await devLeaderboard({ scheme: 'hmac', userId: owner }, gameId, {
        period: 'daily',
        limit: 100,
        offset: 0,
        player: `did:local:${name}`,
      });
      expect(board.player).toMatchObject({ points: 60, rank: shownRank, displayName: name });
      const expected = board.entries.slice(0, 10);
      expect(top.map((row) => row.rank)).toEqual(expected.map((e) => e.rank));
      top.forEach((row, i) => {
        expect(row.text?.endsWith(` · ${expected[i]?.points}`)).toBe(true);
        expect(row.me).toBe(expected[i]?.playerId === `did:local:${name}`);
      });
      if (shownRank <= 10) expect(top.find((row) => row.me)).toMatchObject({ text: `${name} · 60` });
    } finally {
      await browser.close();
    }
  }, 90_000);

  it("runs the SDK's browser module in the npm-installed Chromium, hashing the chain as the server does", async () => {
    const browser = await launchNpmChromium();
    try {
      const page = await browser.newPage();
      await page.goto(demoUrl());
      const link = { seq: 3, delta: 42, clientTime: 1_700_000_000_123, prevHash: 'ab'.repeat(32) };
      // A string, not a function: vitest rewrites import() in this file's functions, which the page cannot run.
      const hash = await page.evaluate(
        `import('/demo/arcadia-play.js').then((sdk) => sdk.flushHash('session-1', ${JSON.stringify(link)}))`,
      );
      expect(hash).toBe(flushHash('session-1', link));
    } finally {
      await browser.close();
    }
  }, 90_000);
});
