// The demo game (/demo on the demo server the stack starts) played end to end in Chromium, as a player does: Connect
// with Arcadia in a popup (the platform's connect page: the player signs in with the local identity provider's email
// code and sets a daily spending limit), catch stars, commit; the page shows the points, the rank and today's top 10
// the leaderboard holds, and the demo's hourly tournament: a countdown, Join, and its board. Then it buys a multiplier
// within the limit (paid from the player's wallet) and is refused above it, with nothing sent. The page never holds
// the player's identity token: every token it sends is the grant's or a play session's.
import { randomUUID } from 'node:crypto';
import { decodeJwt } from 'jose';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { makeChain } from '../../lib/chain/index.js';
import { devLeaderboard } from '../../lib/play/index.js';
import { flushHash } from '../../lib/play/protocol/chain.js';
import { ensureUserForSubject } from '../../lib/user/service.js';
import { loadWallet } from '../../lib/user/wallet.js';
import { launchBrowser, launchNpmChromium } from '../helpers/browser.js';
import { approveInPopup } from '../helpers/connect.js';
import { idpToken, providerWallet, setDelegation } from '../helpers/idp.js';

const SOL = 1_000_000_000n;
const SIGNATURE_FEE = 5_000n;
/** The limit the player sets on the connect page: 0.02 SOL a day, room for a 1.5x hour, not for a 3x day. */
const LIMIT_SOL = '0.02';
const LIMIT_LAMPORTS = 20_000_000n;
const chain = makeChain({ rpcUrl: process.env.SOLANA_RPC_URL ?? '', pollMs: 50 });

const demoUrl = () => {
  const url = process.env.DEMO_URL;
  if (!url) throw new Error('DEMO_URL is not set: the test stack did not start the demo server');
  return url;
};

/** The player's account before playing: the provider's user with its embedded wallet, delegated and funded. */
const fundedPlayer = async (name: string) => {
  const did = `did:local:${name}`;
  await idpToken(name); // the provider creates the user and its embedded wallet
  const wallet = (await loadWallet(await ensureUserForSubject(did)))?.address;
  if (!wallet) throw new Error('expected an embedded wallet');
  await setDelegation(did, true);
  await chain.airdrop(wallet, SOL);
  return { did, wallet };
};

/** Until the page's status line says `prefix…`; its text. */
const logStartingWith = async (page: Page, prefix: string) => {
  await page
    .waitForFunction(
      `document.querySelector('#log').textContent.startsWith(${JSON.stringify(prefix)})`,
      null,
      { timeout: 60_000 },
    )
    .catch(async (error: Error) => {
      throw new Error(`${error.message}\npage log: ${await page.textContent('#log')}`);
    });
  return (await page.textContent('#log')) ?? '';
};

describe('the demo game', () => {
  it('connects with Arcadia, is played in Chromium (points, rank and top 10 as the leaderboard holds them), and buys within the limit only', async () => {
    const name = `demo-${randomUUID().slice(0, 8)}`;
    const player = await fundedPlayer(name);
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
      // The page enables Connect once it has the demo game's config (the first visit registers the game and client).
      await page.waitForSelector('#connect:not([disabled])', { timeout: 30_000 });
      const [popup] = await Promise.all([page.waitForEvent('popup'), page.click('#connect')]);
      await approveInPopup(popup, name, { gameName: 'Star Catcher (demo)', limitSol: LIMIT_SOL });
      await page
        .waitForSelector('#game', { state: 'visible', timeout: 30_000 })
        .catch(async (error: Error) => {
          throw new Error(`${error.message}\npage log: ${await page.textContent('#log')}`);
        });
      expect(await page.textContent('#scopes')).toBe('play, read, tournaments:join, multipliers:buy');
      await page.fill('#name', name);
      await page.click('#start');
      await page.waitForSelector('#star', { state: 'visible', timeout: 30_000 });
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

      // A 1.5x hour fits in the limit: paid from the player's wallet.
      const before = await chain.getBalance(player.wallet);
      await page.selectOption('#tier', '1.5x');
      await page.selectOption('#duration', '3600');
      await page.click('#buy');
      const bought = await logStartingWith(page, 'Bought: ');
      const price = BigInt(/for (\d+) lamports/.exec(bought)?.[1] ?? '0');
      expect(price).toBeGreaterThan(0n);
      expect(price).toBeLessThanOrEqual(LIMIT_LAMPORTS);
      expect(await chain.getBalance(player.wallet)).toBe(before - price - SIGNATURE_FEE);
      await page.waitForFunction("document.querySelector('#active').textContent.startsWith('1.5x')", null, {
        timeout: 30_000,
      });
      // A 3x day is above what is left of the limit: refused, and nothing is signed or sent.
      const balance = await chain.getBalance(player.wallet);
      const signed = (await providerWallet(player.wallet)).signed;
      await page.selectOption('#tier', '3x');
      await page.selectOption('#duration', '86400');
      await page.click('#buy');
      const refused = await logStartingWith(page, 'Above your spending limit for this game: ');
      expect(refused.length).toBeGreaterThan('Above your spending limit for this game: '.length);
      expect(await chain.getBalance(player.wallet)).toBe(balance);
      expect((await providerWallet(player.wallet)).signed).toBe(signed);
      expect(errors).toEqual([]);

      // The page never held a developer key nor the player's identity token: every API call it made carried the
      // grant's access token or a play session token.
      expect(apiAuthorizations.length).toBeGreaterThan(0);
      const audiences = apiAuthorizations.map((authorization) => {
        expect(authorization).toMatch(/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
        return decodeJwt(authorization.slice('Bearer '.length)).aud;
      });
      expect(new Set(audiences)).toEqual(new Set(['arcadia-connect', 'arcadia-play']));

      const { gameId } = (await (await fetch(`${demoUrl()}/config`)).json()) as { gameId: string };
      const owner = await ensureUserForSubject('did:local:demo-studio');
      const board = await devLeaderboard({ scheme: 'hmac', userId: owner }, gameId, {
        period: 'daily',
        limit: 100,
        offset: 0,
        player: player.did,
      });
      expect(board.player).toMatchObject({ points: 60, rank: shownRank, displayName: name });
      const expected = board.entries.slice(0, 10);
      expect(top.map((row) => row.rank)).toEqual(expected.map((e) => e.rank));
      top.forEach((row, i) => {
        expect(row.text?.endsWith(` · ${expected[i]?.points}`)).toBe(true);
        expect(row.me).toBe(expected[i]?.playerId === player.did);
      });
      if (shownRank <= 10) expect(top.find((row) => row.me)).toMatchObject({ text: `${name} · 60` });
    } finally {
      await browser.close();
    }
  }, 180_000);

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
