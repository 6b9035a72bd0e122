// Connect with Arcadia (docs/connect.md), through serverless offline and the local stack: a game's clients, the
// authorization code flow with PKCE driven by an independent OAuth client library (@badgateway/oauth2-client, so
// that the SDK's oauth4webapi and our server can't share a misreading), and the attacks a game's page can make
// with everything it receives: its access and refresh tokens and its session tokens.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { generateCodeVerifier, OAuth2Client } from '@badgateway/oauth2-client';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeChain } from '../../lib/chain/index.js';
import { priceLamports } from '../../lib/rewards/pricing.js';
import { ensureUserForSubject } from '../../lib/user/service.js';
import { loadWallet } from '../../lib/user/wallet.js';
import { registerGame } from '../helpers/games.js';
import { apiBaseUrl } from '../helpers/http.js';
import { idpToken, providerWallet } from '../helpers/idp.js';
import { createDeveloper, type Developer, hmacHeaders } from '../helpers/users.js';

const SOL = 1_000_000_000n;
const chain = makeChain({ rpcUrl: process.env.SOLANA_RPC_URL ?? '', pollMs: 50 });

interface ApiError {
  code: string;
  message: string;
  details: Array<{ path: string; message: string }>;
}
interface Answer<T> {
  status: number;
  headers: Headers;
  body: T & { error?: ApiError };
}

const api = async <T = Record<string, unknown>>(
  method: string,
  path: string,
  options: {
    headers?: Record<string, string>;
    body?: unknown;
    query?: Record<string, string>;
    raw?: string;
  } = {},
): Promise<Answer<T>> => {
  const url = new URL(path, apiBaseUrl());
  for (const [k, v] of Object.entries(options.query ?? {})) url.searchParams.set(k, v);
  const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const res = await fetch(url, {
    method,
    redirect: 'manual',
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(body === undefined ? {} : { body }),
  });
  const text = await res.text();
  const json = (res.headers.get('content-type') ?? '').includes('json') && text ? JSON.parse(text) : {};
  return { status: res.status, headers: res.headers, body: json };
};

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A signed developer request (HMAC, body-bound). */
const signed = <T = Record<string, unknown>>(
  dev: Developer,
  method: string,
  path: string,
  body?: unknown,
) => {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return api<T>(method, path, {
    headers: hmacHeaders(dev, method, path, text === undefined ? {} : { body: text }),
    ...(text === undefined ? {} : { raw: text }),
  });
};

/** POST /oauth/token, form-encoded as RFC 6749 says. */
const token = async (fields: Record<string, string>) => {
  const res = await fetch(new URL('/oauth/token', apiBaseUrl()), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, string> };
};

const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
const newVerifier = () => randomBytes(32).toString('base64url');

interface Player {
  name: string;
  arcId: string;
  token: string;
  wallet: string;
}

const newPlayer = async (lamports = 0n): Promise<Player> => {
  const name = `connect-${randomUUID().slice(0, 8)}`;
  const arcId = await ensureUserForSubject(`did:local:${name}`);
  const token = await idpToken(name);
  const wallet = (await loadWallet(arcId))?.address;
  if (!wallet) throw new Error('expected an embedded wallet');
  if (lamports > 0n) await chain.airdrop(wallet, lamports);
  return { name, arcId, token, wallet };
};

interface Client {
  clientId: string;
  gameId: string;
  redirectUris: string[];
  origins: string[];
}

const REDIRECT = 'https://quest.example/connected';

const addClient = async (
  dev: Developer,
  gameId: string,
  redirectUris = [REDIRECT],
  origins: string[] = [],
) => {
  const res = await signed<{ data: Client }>(dev, 'POST', `/games/oauth-clients/${gameId}`, {
    name: 'Web',
    redirectUris,
    origins,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
};

const ALL_SCOPES = 'play read tournaments:join multipliers:buy';

/** The player approves on the connect page (POST /oauth/consent with their identity token): the code. */
const approve = async (
  player: Player,
  client: Client,
  verifier: string,
  options: { scope?: string; limit?: string | null; redirectUri?: string; state?: string } = {},
) => {
  const res = await api<{ data: { code: string; redirectTo: string; state: string | null } }>(
    'POST',
    '/oauth/consent',
    {
      headers: bearer(player.token),
      body: {
        clientId: client.clientId,
        redirectUri: options.redirectUri ?? client.redirectUris[0],
        scope: options.scope ?? ALL_SCOPES,
        state: options.state ?? 'st',
        codeChallenge: challengeOf(verifier),
        codeChallengeMethod: 'S256',
        spendingLimitLamportsPerDay: options.limit ?? null,
      },
    },
  );
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
};

/** A connected game: the code redeemed; what the game's page holds. */
const connect = async (
  player: Player,
  client: Client,
  options: { scope?: string; limit?: string | null } = {},
) => {
  const verifier = newVerifier();
  const { code } = await approve(player, client, verifier, options);
  const res = await token({
    grant_type: 'authorization_code',
    code,
    redirect_uri: client.redirectUris[0] ?? '',
    client_id: client.clientId,
    code_verifier: verifier,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { access_token: string; refresh_token: string; scope: string; game_id: string };
};

const sessionWith = async (accessToken: string, gameId: string) => {
  const res = await api<{ data: { sessionToken: string } }>('GET', '/play/session-token', {
    headers: bearer(accessToken),
    query: { gameId, idempotencyKey: randomUUID() },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.sessionToken;
};

const leaderboard = (accessToken: string, gameId: string) =>
  api('GET', `/play/leaderboard/${gameId}`, { headers: bearer(accessToken) });

let dev: Developer;
let other: Developer;
let gameId: string;
let otherGameId: string;
let client: Client;

beforeAll(async () => {
  [dev, other] = await Promise.all([createDeveloper(), createDeveloper()]);
  const [game, otherGame] = await Promise.all([registerGame(dev), registerGame(other)]);
  gameId = game.id;
  otherGameId = otherGame.id;
  client = await addClient(dev, gameId, [REDIRECT, 'http://localhost:5173/cb'], ['https://quest.example']);
}, 60_000);

describe("a game's OAuth clients", () => {
  it('are registered, listed and removed by the game’s studio only, with exact https redirect URIs', async () => {
    expect(client).toMatchObject({
      gameId,
      redirectUris: [REDIRECT, 'http://localhost:5173/cb'],
      origins: ['https://quest.example'],
    });
    expect(client.clientId).toMatch(/^arc_[0-9a-f]{32}$/);
    const listed = await signed<{ data: Client[] }>(dev, 'GET', `/games/oauth-clients/${gameId}`);
    expect(listed.body.data.map((c) => c.clientId)).toContain(client.clientId);

    const refused = await signed(dev, 'POST', `/games/oauth-clients/${gameId}`, {
      name: 'Bad',
      redirectUris: ['http://quest.example/cb', 'https://quest.example/cb#x', 'https://u:p@quest.example/'],
      origins: ['https://quest.example/path'],
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error?.details.map((d) => d.path).sort()).toEqual([
      'origins.0',
      'redirectUris.0',
      'redirectUris.1',
      'redirectUris.2',
    ]);

    const stranger = await signed(other, 'POST', `/games/oauth-clients/${gameId}`, {
      name: 'Mine now',
      redirectUris: ['https://evil.example/cb'],
    });
    expect(stranger.status).toBe(403);
    expect((await signed(other, 'GET', `/games/oauth-clients/${gameId}`)).status).toBe(403);

    const extra = await addClient(dev, gameId, ['https://quest.example/other']);
    expect((await signed(other, 'DELETE', `/games/oauth-clients/${gameId}/${extra.clientId}`)).status).toBe(
      403,
    );
    const removed = await signed(dev, 'DELETE', `/games/oauth-clients/${gameId}/${extra.clientId}`);
    expect(removed.body.data).toEqual({ clientId: extra.clientId, deleted: true });
    expect((await signed(dev, 'DELETE', `/games/oauth-clients/${gameId}/${extra.clientId}`)).status).toBe(
      404,
    );
    expect((await api('GET', `/games/oauth-clients/${gameId}`)).status).toBe(401);
  }, 60_000);
});

describe('GET /oauth/authorize', () => {
  const authorize = (query: Record<string, string>) => api('GET', '/oauth/authorize', { query });
  const valid = () => ({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: REDIRECT,
    state: 'xyz',
    scope: 'play read',
    code_challenge: challengeOf(newVerifier()),
    code_challenge_method: 'S256',
  });

  it('refuses an unknown client or an unregistered redirect URI on its own page, redirecting nowhere, unframable', async () => {
    for (const query of [
      { ...valid(), redirect_uri: 'https://evil.example/steal' },
      { ...valid(), redirect_uri: `${REDIRECT}/` },
      { ...valid(), client_id: 'arc_00000000000000000000000000000000' },
    ]) {
      const res = await authorize(query);
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(res.headers.get('content-type')).toContain('text/html');
    }
  });

  it('sends errors after a valid redirect URI back to it with the state, and a valid request to the connect page', async () => {
    const noPkce = await authorize({ ...valid(), code_challenge_method: 'plain' });
    expect(noPkce.status).toBe(302);
    const back = new URL(noPkce.headers.get('location') ?? '');
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('state')).toBe('xyz');
    const implicit = new URL(
      (await authorize({ ...valid(), response_type: 'token' })).headers.get('location') ?? '',
    );
    expect(implicit.searchParams.get('error')).toBe('unsupported_response_type');
    const scope = new URL((await authorize({ ...valid(), scope: 'admin' })).headers.get('location') ?? '');
    expect(scope.searchParams.get('error')).toBe('invalid_scope');

    const query = valid();
    const ok = await authorize(query);
    expect(ok.status).toBe(302);
    expect(ok.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const page = ok.headers.get('location') ?? '';
    expect(page.startsWith(process.env.CONNECT_PAGE_URL ?? 'unset')).toBe(true);
    // Every parameter goes on to the page as sent.
    expect(Object.fromEntries(new URLSearchParams(page.split('?')[1]))).toEqual(query);
  });

  it('shows the connect page what is asked: the game, its verification and the scopes in words', async () => {
    const res = await api<{ data: { game: { id: string; domainVerified: boolean }; scopes: unknown[] } }>(
      'GET',
      '/oauth/requests',
      { query: { clientId: client.clientId, redirectUri: REDIRECT, scope: 'play multipliers:buy' } },
    );
    expect(res.status).toBe(200);
    expect(res.body.data.game).toMatchObject({ id: gameId, domainVerified: false });
    expect(res.body.data.scopes).toEqual([
      { scope: 'play', description: expect.stringContaining('Play') },
      { scope: 'multipliers:buy', description: expect.stringContaining('daily limit you set') },
    ]);
    const unregistered = await api('GET', '/oauth/requests', {
      query: { clientId: client.clientId, redirectUri: 'https://evil.example/', scope: 'play' },
    });
    expect(unregistered.status).toBe(400);
  });
});

describe('the code and its tokens, through an independent OAuth client', () => {
  const oauthClient = (clientId: string) =>
    new OAuth2Client({
      server: apiBaseUrl(),
      clientId,
      authorizationEndpoint: '/oauth/authorize',
      tokenEndpoint: '/oauth/token',
    });

  it('redeems a code with its verifier, plays with the access token, and rotates the refresh token', async () => {
    const player = await newPlayer();
    const oauth = oauthClient(client.clientId);
    const codeVerifier = await generateCodeVerifier();
    const authorizeUri = await oauth.authorizationCode.getAuthorizeUri({
      redirectUri: REDIRECT,
      state: 'st-1',
      codeVerifier,
      scope: ['play', 'read'],
    });
    // The library's authorization request is accepted and goes on to the connect page.
    const started = await fetch(authorizeUri, { redirect: 'manual' });
    expect(started.status).toBe(302);
    expect(started.headers.get('location')).toContain(`client_id=${client.clientId}`);
    const challenge = new URL(authorizeUri).searchParams.get('code_challenge') ?? '';

    // The player approves on the connect page with the challenge the library computed.
    const consent = await api<{ data: { code: string; redirectTo: string } }>('POST', '/oauth/consent', {
      headers: bearer(player.token),
      body: {
        clientId: client.clientId,
        redirectUri: REDIRECT,
        scope: 'play read',
        state: 'st-1',
        codeChallenge: challenge,
        codeChallengeMethod: 'S256',
      },
    });
    expect(consent.status, JSON.stringify(consent.body)).toBe(200);
    const tokens = await oauth.authorizationCode.getTokenFromCodeRedirect(consent.body.data.redirectTo, {
      redirectUri: REDIRECT,
      state: 'st-1',
      codeVerifier,
    });
    expect(tokens.accessToken).toBeTruthy();
    expect(tokens.expiresAt).toBeGreaterThan(Date.now() + 500_000);

    const session = await sessionWith(tokens.accessToken, gameId);
    expect(session).toBeTruthy();
    expect((await leaderboard(tokens.accessToken, gameId)).status).toBe(200);

    const next = await oauth.refreshToken(tokens);
    expect(next.refreshToken).not.toBe(tokens.refreshToken);
    expect((await leaderboard(next.accessToken, gameId)).status).toBe(200);
    // The spent refresh token again is a replay: the library sees the OAuth error, and the grant is revoked.
    await expect(oauth.refreshToken(tokens)).rejects.toMatchObject({ oauth2Code: 'invalid_grant' });
    expect((await leaderboard(next.accessToken, gameId)).status).toBe(401);
    await expect(oauth.refreshToken(next)).rejects.toMatchObject({ oauth2Code: 'invalid_grant' });
  }, 60_000);

  it("won't redeem a code for another client, at another redirect URI, without or with a wrong verifier; a replay revokes", async () => {
    const player = await newPlayer();
    const otherClient = await addClient(other, otherGameId, ['https://other.example/cb']);
    const verifier = newVerifier();
    const { code } = await approve(player, client, verifier);
    const base = {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: client.clientId,
      code_verifier: verifier,
    };
    const attempts = [
      { ...base, client_id: otherClient.clientId },
      { ...base, redirect_uri: 'http://localhost:5173/cb' },
      { ...base, code_verifier: newVerifier() },
      Object.fromEntries(Object.entries(base).filter(([k]) => k !== 'code_verifier')),
    ];
    for (const fields of attempts) {
      const res = await token(fields);
      expect(res.status, JSON.stringify(fields)).toBe(400);
      expect(['invalid_grant', 'invalid_request']).toContain(res.body.error);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
    // None of those spent it: the right client redeems it once.
    const first = await token(base);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect((await leaderboard(first.body.access_token ?? '', gameId)).status).toBe(200);
    const replay = await token(base);
    expect(replay.status).toBe(400);
    expect(replay.body).toMatchObject({ error: 'invalid_grant' });
    expect(replay.body.error_description).toContain('revoked');
    // Everything the grant issued stops: its access token and its refresh token.
    expect((await leaderboard(first.body.access_token ?? '', gameId)).status).toBe(401);
    const refresh = await token({
      grant_type: 'refresh_token',
      refresh_token: first.body.refresh_token ?? '',
      client_id: client.clientId,
    });
    expect(refresh.body.error).toBe('invalid_grant');
  }, 60_000);

  it('refuses an unknown grant type and a forged refresh token without revoking the real grant', async () => {
    const player = await newPlayer();
    const tokens = await connect(player, client);
    expect((await token({ grant_type: 'password', username: 'a', password: 'b' })).body.error).toBe(
      'unsupported_grant_type',
    );
    const forged = `${tokens.refresh_token.split('.').slice(0, 2).join('.')}.0.${'A'.repeat(43)}`;
    const res = await token({
      grant_type: 'refresh_token',
      refresh_token: forged,
      client_id: client.clientId,
    });
    expect(res.body.error).toBe('invalid_grant');
    expect((await leaderboard(tokens.access_token, gameId)).status).toBe(200);
  }, 60_000);
});

describe("what a game's page can do with what it holds", () => {
  it('403 INSUFFICIENT_SCOPE on every route beyond its scopes, with the access, refresh and session tokens', async () => {
    const player = await newPlayer();
    const tokens = await connect(player, client, { scope: 'play read' });
    const session = await sessionWith(tokens.access_token, gameId);
    const attacks: Array<[string, string, unknown?]> = [
      ['POST', '/games', {}],
      ['POST', `/games/update/${gameId}`, {}],
      ['POST', `/tournaments/${gameId}`, {}],
      ['POST', `/tournaments/${gameId}/${randomUUID()}/deposits`, {}],
      ['POST', '/token-launcher/launch', {}],
      ['POST', '/user/reset-secret'],
      ['PATCH', '/user/me', { strictSigning: false }],
      ['GET', '/user/me'],
      ['PUT', `/rewards/allowances/${gameId}`, { lamportsPerDay: '1000000000' }],
      ['DELETE', `/rewards/allowances/${gameId}`],
      ['GET', '/user/connections'],
      ['DELETE', `/user/connections/${gameId}`],
      ['POST', '/oauth/consent', {}],
      ['POST', `/games/oauth-clients/${gameId}`, {}],
      ['POST', '/play/dev/batch-save-points', {}],
      ['POST', '/token-launcher/exercise-claim/submit', {}],
      // Another game's data, and this game's routes beyond the grant's scopes.
      ['GET', `/play/leaderboard/${otherGameId}`],
      ['GET', `/tournaments/${otherGameId}`],
      ['POST', `/tournaments/${gameId}/${randomUUID()}/join`, {}],
      ['POST', '/multiplier/purchase', { gameId, tier: '2x', durationSeconds: 3600, idempotencyKey: 'k' }],
    ];
    for (const held of [tokens.access_token, tokens.refresh_token, session]) {
      for (const [method, path, body] of attacks) {
        const res = await api(method, path, {
          headers: bearer(held),
          ...(body === undefined ? {} : { body }),
        });
        expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(403);
        expect(res.body.error?.code).toBe('INSUFFICIENT_SCOPE');
      }
    }
    // A session for another game can't be opened with this game's grant.
    const elsewhere = await api('GET', '/play/session-token', {
      headers: bearer(tokens.access_token),
      query: { gameId: otherGameId },
    });
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.error?.code).toBe('INSUFFICIENT_SCOPE');
    // What the scopes do cover still works.
    expect((await leaderboard(session, gameId)).status).toBe(200);
    expect(
      (await api('GET', `/tournaments/${gameId}`, { headers: bearer(tokens.access_token) })).status,
    ).toBe(200);
  }, 90_000);

  it('buys within the spending limit the player set, and is refused beyond it with nothing sent', async () => {
    const player = await newPlayer(SOL);
    const price = priceLamports({ tier: '2x', durationSeconds: 3_600, competitors: 0 });
    const tokens = await connect(player, client, { limit: (price + 1_000n).toString() });
    const session = await sessionWith(tokens.access_token, gameId);
    const buy = (held: string, tier: string) =>
      api<{ data: { status: string; lamports: string } }>('POST', '/multiplier/purchase', {
        headers: bearer(held),
        body: { gameId, tier, durationSeconds: 3_600, idempotencyKey: randomUUID() },
      });
    const before = await chain.getBalance(player.wallet);
    const first = await buy(session, '2x');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toMatchObject({ status: 'completed', lamports: price.toString() });
    const after = await chain.getBalance(player.wallet);
    expect(after).toBeLessThan(before - price + 1n);
    const signed = (await providerWallet(player.wallet)).signed;
    // 1 000 lamports left: the access token and the session token are both refused, and nothing is signed.
    for (const held of [tokens.access_token, session]) {
      const res = await buy(held, '1.5x');
      expect(res.status, JSON.stringify(res.body)).toBe(403);
      expect(res.body.error?.code).toBe('PURCHASE_ALLOWANCE_EXCEEDED');
    }
    expect(await chain.getBalance(player.wallet)).toBe(after);
    expect((await providerWallet(player.wallet)).signed).toBe(signed);
  }, 120_000);

  it('with no limit chosen (the default), buys nothing', async () => {
    const player = await newPlayer(SOL);
    const tokens = await connect(player, client);
    const before = await chain.getBalance(player.wallet);
    const res = await api('POST', '/multiplier/purchase', {
      headers: bearer(tokens.access_token),
      body: { gameId, tier: '1.5x', durationSeconds: 3_600, idempotencyKey: randomUUID() },
    });
    expect(res.status).toBe(403);
    expect(res.body.error?.code).toBe('PURCHASE_ALLOWANCE_REQUIRED');
    expect(await chain.getBalance(player.wallet)).toBe(before);
  }, 60_000);
});

describe("the player's connected games", () => {
  it('are listed, and a revoked one stops refreshing and its access tokens at once', async () => {
    const player = await newPlayer();
    const tokens = await connect(player, client, { limit: '5000000' });
    const listed = await api<{ data: Array<{ gameId: string; spendingLimitLamportsPerDay: string | null }> }>(
      'GET',
      '/user/connections',
      { headers: bearer(player.token) },
    );
    expect(listed.body.data).toEqual([
      expect.objectContaining({ gameId, clientId: client.clientId, spendingLimitLamportsPerDay: '5000000' }),
    ]);
    const session = await sessionWith(tokens.access_token, gameId);

    const revoked = await api('DELETE', `/user/connections/${gameId}`, { headers: bearer(player.token) });
    expect(revoked.body).toEqual({ data: { gameId, revoked: true } });
    // The stated bound: zero. The very next request with the access token is refused.
    expect((await leaderboard(tokens.access_token, gameId)).status).toBe(401);
    const refresh = await token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: client.clientId,
    });
    expect(refresh.body.error).toBe('invalid_grant');
    // Its spending limit went with it: the session it opened can buy nothing.
    const buy = await api('POST', '/multiplier/purchase', {
      headers: bearer(session),
      body: { gameId, tier: '1.5x', durationSeconds: 3_600, idempotencyKey: randomUUID() },
    });
    expect(buy.body.error?.code).toBe('PURCHASE_ALLOWANCE_REQUIRED');
    expect(
      (await api<{ data: unknown[] }>('GET', '/user/connections', { headers: bearer(player.token) })).body
        .data,
    ).toEqual([]);
    expect(
      (await api('DELETE', `/user/connections/${gameId}`, { headers: bearer(player.token) })).status,
    ).toBe(404);
  }, 60_000);

  it('connecting again replaces the earlier grant: its tokens stop', async () => {
    const player = await newPlayer();
    const first = await connect(player, client);
    const second = await connect(player, client);
    expect((await leaderboard(first.access_token, gameId)).status).toBe(401);
    expect((await leaderboard(second.access_token, gameId)).status).toBe(200);
  }, 60_000);
});
