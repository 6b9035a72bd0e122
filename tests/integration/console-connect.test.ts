// Connect with Arcadia in the console, in Chromium against the local stack, as a studio and a player use it: the
// studio registers its game's client on the clients page (the API's refusal of a plain-http redirect URI shown);
// the connect page refuses an unregistered redirect URI and sends the browser nowhere; the console can't be framed;
// a player goes through the API's authorization endpoint to the connect page, signs in there, sets a daily limit,
// approves, and lands on the game's redirect URI with a code that the token endpoint redeems (with the PKCE
// verifier) for a game-scoped token that plays but can't create a game; the popup variant posts the code to the
// opener; Deny answers access_denied; the connected games page lists the game and Disconnect revokes its token.
// axe-core finds no serious or critical issue on the new pages at 375 and 1280 px; screenshots go to
// tests/.artifacts/console.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ArcadiaClient, createArcadiaClient, unwrap } from '../../sdk/src/index.js';
import { dataUri, png } from '../fixtures/images/build.js';
import { launchBrowser } from '../helpers/browser.js';
import {
  consoleUrl,
  open,
  screenshot,
  seriousAxeFindings,
  signIn,
  USER_CONTEXT,
} from '../helpers/console.js';
import { apiBaseUrl } from '../helpers/http.js';
import { idpToken } from '../helpers/idp.js';

const studioName = `connect-studio-${randomUUID().slice(0, 8)}`;
const playerName = `connect-player-${randomUUID().slice(0, 8)}`;
const gameName = `Connect ${studioName}`;

let browser: Browser;
let studio: ArcadiaClient;
let gameId: string;
let clientId: string;
/** The game's pages: a loopback server that records every request (the redirect URI and the popup's opener). */
let game: Server;
let gameOrigin: string;
const received: string[] = [];
const errors: string[] = [];

const GAME_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Game</title></head>
<body><main><h1>The game</h1></main><script>
window.received = [];
addEventListener('message', (event) => window.received.push({ origin: event.origin, data: event.data }));
</script></body></html>`;

beforeAll(async () => {
  browser = await launchBrowser();
  game = createServer((req, res) => {
    received.push(req.url ?? '');
    const framing = req.url === '/frame';
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      framing ? `<!doctype html><title>Framer</title><iframe src="${consoleUrl()}"></iframe>` : GAME_PAGE,
    );
  });
  await new Promise<void>((resolve) => game.listen(0, '127.0.0.1', resolve));
  gameOrigin = `http://127.0.0.1:${(game.address() as AddressInfo).port}`;
  studio = createArcadiaClient({ baseUrl: apiBaseUrl(), bearerToken: await idpToken(studioName) });
  unwrap(await studio.GET('/user/me'));
  gameId = unwrap(
    await studio.POST('/games', {
      body: {
        name: gameName,
        description: 'A game players connect',
        gameUrl: 'https://connect.example/play',
        platform: 'WEB',
        base64Image: dataUri('png', png()),
        maxScorePerSession: 100,
      },
    }),
  ).game.id;
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => game?.close(resolve));
});

/** A tab of its own at `width` px (contexts stay open: closing one can end the single-process npm Chromium). */
const newPage = async (width: number): Promise<Page> => {
  const page = await (
    await browser.newContext({ ...USER_CONTEXT, viewport: { width, height: 900 } })
  ).newPage();
  page.on('pageerror', (error) => errors.push(error.message));
  return page;
};

const base64url = (bytes: Buffer) => bytes.toString('base64url');
/** A PKCE pair (RFC 7636, S256): the verifier the game keeps, the challenge it sends. */
const pkce = () => {
  const verifier = base64url(randomBytes(32));
  return { verifier, challenge: base64url(createHash('sha256').update(verifier).digest()) };
};

const redirectUri = () => `${gameOrigin}/connected`;

const authorizeUrl = (params: Record<string, string>) =>
  `${apiBaseUrl()}/oauth/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri(),
    code_challenge_method: 'S256',
    ...params,
  })}`;

const connectUrl = (params: Record<string, string>) =>
  `${consoleUrl()}#/connect?${new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    code_challenge_method: 'S256',
    ...params,
  })}`;

/** Signs the player in on the connect page itself (the console's email sign-in, the local inbox's code). */
const signInOnConnectPage = async (page: Page, name: string) => {
  await page.getByLabel('Email').fill(`${name}@local`);
  await page.getByRole('button', { name: 'Send a sign-in code' }).click();
  const code = (await page.locator('#local-code code').textContent({ timeout: 30_000 })) ?? '';
  await page.getByLabel('Code').fill(code);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { level: 2, name: 'Your answer' }).waitFor({ timeout: 30_000 });
};

const redeem = async (code: string, verifier: string) => {
  const response = await fetch(`${apiBaseUrl()}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri(),
      client_id: clientId,
      code_verifier: verifier,
    }),
  });
  const body = (await response.json()) as Record<string, unknown>;
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body as { access_token: string; scope: string; game_id: string };
};

const withToken = (token: string, path: string, init: RequestInit = {}) =>
  fetch(`${apiBaseUrl()}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
  });

const axeAndScreenshot = async (page: Page, name: string) => {
  expect(await seriousAxeFindings(page), name).toEqual([]);
  const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - innerWidth'));
  expect(overflow, `${name} scrolls sideways`).toBeLessThanOrEqual(0);
  await screenshot(page, name);
};

describe('Connect with Arcadia in the console', () => {
  let studioPage: Page;

  it("registers a client on the game clients page, showing the API's refusal of a plain-http redirect URI", async () => {
    studioPage = await newPage(1280);
    await signIn(studioPage, studioName);
    await open(studioPage, `clients?game=${gameId}`, 'Game clients');
    await studioPage.locator('#clients-title ~ .empty').waitFor({ timeout: 30_000 });

    await studioPage.getByLabel('Name').fill('Web game');
    await studioPage.getByLabel('Redirect URIs (one a line)').fill('http://example.com/back');
    await studioPage.getByRole('button', { name: 'Add client' }).click();
    const refusal = studioPage.locator('form .error');
    await refusal.waitFor();
    expect(await refusal.textContent()).toContain('VALIDATION_ERROR');
    expect(await refusal.locator('.error-details').textContent()).toMatch(/redirectUris\.0: must be https/);
    await screenshot(studioPage, 'clients-refused');

    await studioPage.getByLabel('Redirect URIs (one a line)').fill(`${redirectUri()}\n`);
    await studioPage.getByLabel('Origins for the popup (optional, one a line)').fill(gameOrigin);
    await studioPage.getByRole('button', { name: 'Add client' }).click();
    await studioPage.getByRole('status').filter({ hasText: 'Added Web game.' }).waitFor();
    const row = studioPage.locator('tbody tr', { hasText: 'Web game' });
    await row.waitFor();
    clientId = (await row.locator('code.client-id').textContent()) ?? '';
    expect(clientId).toMatch(/^arc_/);
    expect(await row.textContent()).toContain(redirectUri());
    const listed = unwrap(
      await studio.GET('/games/oauth-clients/{gameId}', { params: { path: { gameId } } }),
    );
    expect(listed.map((c) => [c.clientId, c.redirectUris, c.origins])).toEqual([
      [clientId, [redirectUri()], [gameOrigin]],
    ]);
  }, 90_000);

  it('removes a client after confirmation', async () => {
    await studioPage.getByLabel('Name').fill('Staging');
    await studioPage.getByLabel('Redirect URIs (one a line)').fill('https://staging.connect.example/back');
    await studioPage.getByLabel('Origins for the popup (optional, one a line)').fill('');
    await studioPage.getByRole('button', { name: 'Add client' }).click();
    await studioPage.locator('tbody tr', { hasText: 'Staging' }).waitFor();
    for (const width of [375, 1280]) {
      await studioPage.setViewportSize({ width, height: 900 });
      await axeAndScreenshot(studioPage, 'clients');
    }
    await studioPage.getByRole('button', { name: 'Remove Staging…' }).click();
    await studioPage.getByRole('button', { name: 'Remove client' }).click();
    await studioPage.getByRole('status').filter({ hasText: 'Removed Staging.' }).waitFor();
    await studioPage.locator('tbody tr', { hasText: 'Web game' }).waitFor();
    expect(await studioPage.locator('tbody tr', { hasText: 'Staging' }).count()).toBe(0);
    const listed = unwrap(
      await studio.GET('/games/oauth-clients/{gameId}', { params: { path: { gameId } } }),
    );
    expect(listed.map((c) => c.name)).toEqual(['Web game']);
  }, 60_000);

  it('links the clients page from the game and the navigation', async () => {
    await open(studioPage, `games/${gameId}`, 'Edit game');
    await studioPage
      .getByRole('navigation', { name: 'This game' })
      .getByRole('link', { name: 'Game clients' })
      .click();
    await studioPage.getByRole('heading', { level: 1, name: 'Game clients' }).waitFor();
    expect(new URL(studioPage.url()).hash).toBe(`#/clients?game=${gameId}`);
    await studioPage.locator('tbody tr', { hasText: 'Web game' }).waitFor();
    // From one page loaded on first visit to another, through the navigation: each shows its own content.
    const sections = studioPage.getByRole('navigation', { name: 'Sections' });
    await sections.getByRole('link', { name: 'Connected games' }).click();
    await studioPage.getByRole('heading', { level: 1, name: 'Connected games' }).waitFor();
    await studioPage.getByText('No connected games.').waitFor();
    await sections.getByRole('link', { name: 'Game clients' }).click();
    await studioPage.locator('tbody tr', { hasText: 'Web game' }).waitFor();
  });

  it('refuses an unregistered redirect URI on the connect page and sends the browser nowhere', async () => {
    const page = await newPage(375);
    const elsewhere = `${gameOrigin}/elsewhere`;
    const navigations: string[] = [];
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) navigations.push(frame.url());
    });
    const before = received.length;
    const url = connectUrl({
      redirect_uri: elsewhere,
      scope: 'play',
      state: 'st-refused',
      code_challenge: pkce().challenge,
    });
    await page.goto(url);
    const alert = page.getByRole('alert');
    await alert.waitFor({ timeout: 30_000 });
    expect(await alert.textContent()).toContain(
      "redirect_uri is not one of the client's registered redirect URIs",
    );
    expect(await page.getByRole('button', { name: /Approve|Deny/ }).count()).toBe(0);
    // The page neither leaves nor fetches the unregistered address, now or a moment later.
    await page.waitForTimeout(1_500);
    expect(page.url().startsWith(`${consoleUrl()}#/connect?`)).toBe(true);
    expect(navigations.every((n) => n.startsWith(consoleUrl()))).toBe(true);
    expect(received.slice(before)).toEqual([]);
    // No console navigation on the connect page.
    expect(await page.getByRole('navigation', { name: 'Sections' }).count()).toBe(0);
    await axeAndScreenshot(page, 'connect-refused');
  }, 60_000);

  it("answers the console's HTML with frame-ancestors 'none', and a page can't frame it", async () => {
    const answer = await fetch(consoleUrl());
    expect(answer.headers.get('content-type')).toContain('text/html');
    expect(answer.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(answer.headers.get('x-frame-options')).toBe('DENY');
    const connect = await fetch(connectUrl({ scope: 'play' }));
    expect(connect.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");

    const page = await newPage(1280);
    await page.goto(`${gameOrigin}/frame`);
    await page.waitForTimeout(1_000);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    // Chromium replaces a refused frame with its error page: no console in it.
    const inside = frame
      ? await frame.evaluate('document.querySelector("#app")?.outerHTML ?? null').catch(() => null)
      : null;
    expect(inside).toBeNull();
  }, 30_000);

  describe('a player connecting the game', () => {
    let player: Page;
    let accessToken: string;

    it('goes from the authorization endpoint to the connect page, signs in, sets a limit, approves and lands on the redirect URI', async () => {
      player = await newPage(375);
      const { verifier, challenge } = pkce();
      await player.goto(
        authorizeUrl({ scope: 'play read multipliers:buy', state: 'st-redirect', code_challenge: challenge }),
      );
      await player
        .getByRole('heading', { level: 1, name: 'Connect a game to your Arcadia account' })
        .waitFor();
      expect(player.url().startsWith(`${consoleUrl()}#/connect?`)).toBe(true);
      await player.locator('.connect-game-name', { hasText: gameName }).waitFor({ timeout: 30_000 });
      expect(await player.locator('.unverified').textContent()).toContain('Domain not verified');
      expect(await player.locator('.scopes li').allTextContents()).toEqual([
        'Play: open sessions and save your points in this game, and set your name on its boards',
        'See your points, ranks, tournaments and payouts in this game',
        'Buy score multipliers in this game with your SOL, up to the daily limit you set',
      ]);
      expect(await player.getByText('Web game', { exact: true }).count()).toBe(1);
      // No limit unless the player sets one.
      const limit = player.getByLabel('SOL a day the game may spend on multipliers for you');
      expect(await limit.inputValue()).toBe('');
      expect(await player.locator('#limit-hint').textContent()).toContain('None');
      expect(await player.getByRole('navigation', { name: 'Sections' }).count()).toBe(0);
      for (const width of [1280, 375]) {
        await player.setViewportSize({ width, height: 900 });
        await axeAndScreenshot(player, 'connect-sign-in');
      }

      await signInOnConnectPage(player, playerName);
      await limit.fill('abc');
      expect(await player.getByRole('button', { name: 'Approve' }).isDisabled()).toBe(true);
      await limit.fill('0.05');
      expect(await player.locator('#limit-hint').textContent()).toContain('50,000,000 lamports');
      for (const width of [1280, 375]) {
        await player.setViewportSize({ width, height: 900 });
        await axeAndScreenshot(player, 'connect-approve');
      }

      const landed = player.waitForURL((url) => url.origin === gameOrigin, { timeout: 30_000 });
      await player.getByRole('button', { name: 'Approve' }).click();
      await landed;
      const back = new URL(player.url());
      expect(back.origin + back.pathname).toBe(redirectUri());
      expect(back.searchParams.get('state')).toBe('st-redirect');
      const code = back.searchParams.get('code') ?? '';
      expect(code).not.toBe('');

      const tokens = await redeem(code, verifier);
      expect(tokens.game_id).toBe(gameId);
      expect(tokens.scope.split(' ').sort()).toEqual(['multipliers:buy', 'play', 'read']);
      accessToken = tokens.access_token;
      expect((await withToken(accessToken, `/play/leaderboard/${gameId}`)).status).toBe(200);
      const create = await withToken(accessToken, '/games', { method: 'POST', body: JSON.stringify({}) });
      expect(create.status).toBe(403);
      expect(((await create.json()) as { error: { code: string } }).error.code).toBe('INSUFFICIENT_SCOPE');
    }, 120_000);

    it('answers access_denied at the redirect URI when the player denies', async () => {
      const page = await newPage(1280);
      await page.goto(
        connectUrl({
          redirect_uri: redirectUri(),
          scope: 'play',
          state: 'st-deny',
          code_challenge: pkce().challenge,
        }),
      );
      await page.locator('.connect-game-name').waitFor({ timeout: 30_000 });
      const landed = page.waitForURL((url) => url.origin === gameOrigin, { timeout: 30_000 });
      await page.getByRole('button', { name: 'Deny' }).click();
      await landed;
      const back = new URL(page.url());
      expect([...back.searchParams]).toEqual([
        ['error', 'access_denied'],
        ['state', 'st-deny'],
      ]);
    }, 60_000);

    type Posted = { origin: string; data: { type: string; response: { code: string; state: string } } };

    /**
     * The game's page at `origin` opens the connect popup; the player approves; what the page received. In a
     * browser of its own: the npm Chromium (one process) exits when a page opens a popup while another context is
     * open.
     */
    const popupFlow = async (origin: string, player: string) => {
      const own = await launchBrowser();
      try {
        return await openPopup(await (await own.newContext(USER_CONTEXT)).newPage(), origin, player);
      } finally {
        await own.close();
      }
    };

    const openPopup = async (page: Page, origin: string, player: string) => {
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(`${origin}/play`);
      const { verifier, challenge } = pkce();
      const url = authorizeUrl({
        scope: 'play read',
        state: 'st-popup',
        code_challenge: challenge,
        response_mode: 'web_message',
      });
      const opened = page.waitForEvent('popup');
      await page.evaluate(`window.open(${JSON.stringify(url)}, 'arcadia-connect', 'width=420,height=720')`);
      const popup = await opened;
      popup.on('pageerror', (error) => errors.push(error.message));
      await popup.locator('.connect-game-name').waitFor({ timeout: 30_000 });
      await signInOnConnectPage(popup, player);
      const closed = popup.waitForEvent('close', { timeout: 30_000 });
      await popup.getByRole('button', { name: 'Approve' }).click();
      await closed;
      await page.waitForTimeout(1_000);
      return { verifier, messages: (await page.evaluate('window.received')) as Posted[] };
    };

    it('posts the code to the opener at its registered origins only, in the popup variant', async () => {
      // Other players: the first one's grant (with its limit) stays for the connected games page.
      const { verifier, messages } = await popupFlow(gameOrigin, `${playerName}-popup`);
      expect(messages).toHaveLength(1);
      expect(messages[0]?.origin).toBe(new URL(consoleUrl()).origin);
      expect(messages[0]?.data.type).toBe('authorization_response');
      expect(messages[0]?.data.response.state).toBe('st-popup');
      const tokens = await redeem(messages[0]?.data.response.code ?? '', verifier);
      expect(tokens.scope.split(' ').sort()).toEqual(['play', 'read']);
      expect((await withToken(tokens.access_token, `/play/leaderboard/${gameId}`)).status).toBe(200);

      // The same game page at an origin the client did not register (localhost, not 127.0.0.1) gets nothing.
      const other = await popupFlow(gameOrigin.replace('127.0.0.1', 'localhost'), `${playerName}-popup2`);
      expect(other.messages).toEqual([]);
    }, 120_000);

    it('lists the game on the connected games page, and Disconnect revokes its token', async () => {
      expect((await withToken(accessToken, `/play/leaderboard/${gameId}`)).status).toBe(200);
      await player.goto(`${consoleUrl()}#/connections`);
      await player.getByRole('heading', { level: 1, name: 'Connected games' }).waitFor();
      const row = player.locator('tbody tr', { hasText: gameName });
      await row.waitFor({ timeout: 30_000 });
      expect(await row.locator('.scope-list li').allTextContents()).toEqual([
        'Play: open sessions and save your points in this game, and set your name on its boards',
        'See your points, ranks, tournaments and payouts in this game',
        'Buy score multipliers in this game with your SOL, up to the daily limit you set',
      ]);
      expect(await row.locator('.limit-cell').textContent()).toBe('0.05 SOL a day');
      for (const width of [1280, 375]) {
        await player.setViewportSize({ width, height: 900 });
        await axeAndScreenshot(player, 'connections');
      }
      await player.getByRole('button', { name: `Disconnect ${gameName}…` }).click();
      await player.getByRole('button', { name: 'Disconnect', exact: true }).click();
      await player
        .getByRole('status')
        .filter({ hasText: `Disconnected ${gameName}` })
        .waitFor();
      await player.getByText('No connected games.').waitFor();
      expect((await withToken(accessToken, `/play/leaderboard/${gameId}`)).status).toBe(401);
      expect(errors).toEqual([]);
    }, 90_000);
  });
});
