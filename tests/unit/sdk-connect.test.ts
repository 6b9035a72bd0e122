// PlayClient.connect(): the popup and redirect flows with PKCE S256 against a fake authorization server and a fake
// browser window, then the grant's tokens: the session opened with the access token, refreshed before it expires and
// after a 401, one refresh at a time (a refresh token spent twice would revoke the grant).
import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CONNECT_STORAGE_KEY, PlayClient } from '../../sdk/src/browser.js';

const API = 'https://api.test';
const GAME = '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f';
const CLIENT = 'arc_demo';
const PAGE = 'https://game.test/play';

interface Message {
  source: unknown;
  data: unknown;
}

/** The browser APIs the flow uses: one popup, message listeners, the address, sessionStorage and history. */
class FakeWindow {
  readonly popup = {
    closed: false,
    location: { href: '' },
    close() {
      this.closed = true;
    },
  };
  readonly listeners = new Set<(event: Message) => void>();
  readonly storage = new Map<string, string>();
  readonly opened: string[] = [];
  readonly location = {
    href: `${PAGE}?level=2`,
    origin: 'https://game.test',
    pathname: '/play',
    assigned: '',
    assign(url: string) {
      this.assigned = url;
    },
  };
  readonly sessionStorage = {
    getItem: (key: string) => this.storage.get(key) ?? null,
    setItem: (key: string, value: string) => void this.storage.set(key, value),
    removeItem: (key: string) => void this.storage.delete(key),
  };
  readonly history = {
    replaceState: (_data: unknown, _unused: string, url?: string) => {
      if (url) this.location.href = url;
    },
  };
  open(url: string) {
    this.opened.push(url);
    return this.popup;
  }
  addEventListener(_type: string, listener: (event: Message) => void) {
    this.listeners.add(listener);
  }
  removeEventListener(_type: string, listener: (event: Message) => void) {
    this.listeners.delete(listener);
  }
  post(source: unknown, data: unknown) {
    for (const listener of [...this.listeners]) listener({ source, data });
  }
}

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/** The token endpoint and the API, as far as the client needs them. */
class FakeServer {
  readonly codes = new Map<string, { challenge: string; redirectUri: string }>();
  readonly forms: Record<string, string>[] = [];
  readonly calls: Array<{ path: string; authorization: string | null; body?: unknown }> = [];
  refreshGen = 0;
  expiresIn = 600;
  revoked = false;
  /** Access tokens the API refuses with 401 (once each). */
  readonly refuse = new Set<string>();

  /** The code the connect page would issue for an authorize URL. */
  issue(authorizeUrl: string): string {
    const url = new URL(authorizeUrl);
    const code = `code-${this.codes.size + 1}`;
    this.codes.set(code, {
      challenge: url.searchParams.get('code_challenge') ?? '',
      redirectUri: url.searchParams.get('redirect_uri') ?? '',
    });
    return code;
  }

  private tokens(gen: number) {
    return Response.json({
      access_token: `access-${gen}`,
      token_type: 'Bearer',
      expires_in: this.expiresIn,
      refresh_token: `refresh-${gen}`,
      scope: 'play read multipliers:buy',
      game_id: GAME,
    });
  }

  private oauthError(error: string) {
    return Response.json({ error, error_description: error }, { status: 400 });
  }

  readonly fetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (url.pathname === '/oauth/token') {
      const form = Object.fromEntries(new URLSearchParams(await request.text()));
      this.forms.push(form);
      if (form.client_id !== CLIENT) return this.oauthError('invalid_client');
      if (form.grant_type === 'authorization_code') {
        const code = this.codes.get(form.code ?? '');
        this.codes.delete(form.code ?? '');
        if (
          !code ||
          code.redirectUri !== form.redirect_uri ||
          s256(form.code_verifier ?? '') !== code.challenge
        )
          return this.oauthError('invalid_grant');
        return this.tokens(this.refreshGen);
      }
      if (this.revoked || form.refresh_token !== `refresh-${this.refreshGen}`) {
        this.revoked = true; // a replay revokes the grant
        return this.oauthError('invalid_grant');
      }
      this.refreshGen += 1;
      return this.tokens(this.refreshGen);
    }
    const authorization = request.headers.get('authorization');
    const body = request.method === 'POST' ? await request.json() : undefined;
    this.calls.push({ path: url.pathname, authorization, ...(body ? { body } : {}) });
    const token = authorization?.replace('Bearer ', '') ?? '';
    if (this.refuse.delete(token))
      return Response.json({ error: { code: 'UNAUTHORIZED', message: 'expired' } }, { status: 401 });
    if (url.pathname === '/play/session-token')
      return Response.json({
        data: { sessionId: 's-1', sessionToken: 'session-token', chainSeed: 'ab'.repeat(32), expiresAt: '' },
      });
    return Response.json({ data: { path: url.pathname, token } });
  };
}

let w: FakeWindow;
let server: FakeServer;
const newClient = () => new PlayClient({ baseUrl: `${API}/`, clientId: CLIENT, fetch: server.fetch });
/** Until the popup was sent to the authorization endpoint (after the challenge is computed). */
const authorizeUrl = async () => {
  await vi.waitFor(() => expect(w.popup.location.href).not.toBe(''));
  return w.popup.location.href;
};
const answer = (state: string | null, response: Record<string, string>) => ({
  type: 'authorization_response',
  response: { ...response, ...(state === null ? {} : { state }) },
});

beforeEach(() => {
  w = new FakeWindow();
  server = new FakeServer();
  vi.stubGlobal('window', w);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('PlayClient.connect() in a popup', () => {
  it('asks for a code with PKCE S256, takes the answer only from its popup with its state, and opens the session with the access token', async () => {
    const client = newClient();
    const connecting = client.connect({ scopes: ['play', 'read', 'multipliers:buy'] });
    // Opened at once, in the click that called connect(): a popup opened after an await is blocked.
    expect(w.opened).toEqual(['']);
    const url = new URL(await authorizeUrl());
    expect(`${url.origin}${url.pathname}`).toBe(`${API}/oauth/authorize`);
    const q = Object.fromEntries(url.searchParams);
    expect(q).toMatchObject({
      response_type: 'code',
      client_id: CLIENT,
      redirect_uri: PAGE,
      scope: 'play read multipliers:buy',
      code_challenge_method: 'S256',
      response_mode: 'web_message',
    });
    expect(q.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.state?.length).toBeGreaterThanOrEqual(32);
    const code = server.issue(url.href);

    // Another window, another type, another state: ignored.
    w.post({}, answer(q.state ?? '', { code }));
    w.post(w.popup, { type: 'other', response: { code, state: q.state } });
    w.post(w.popup, answer('forged', { code: 'code-forged' }));
    w.post(w.popup, answer(q.state ?? '', { code }));
    expect(await connecting).toMatchObject({ gameId: GAME, scopes: ['play', 'read', 'multipliers:buy'] });
    expect(w.listeners.size).toBe(0);
    expect(server.forms).toHaveLength(1);
    expect(server.forms[0]).toMatchObject({
      grant_type: 'authorization_code',
      code,
      client_id: CLIENT,
      redirect_uri: PAGE,
    });
    expect(s256(server.forms[0]?.code_verifier ?? '')).toBe(q.code_challenge);

    await client.start(GAME);
    expect(server.calls[0]).toMatchObject({ path: '/play/session-token', authorization: 'Bearer access-0' });
    // Then the session token, for play and purchases alike.
    const bought = await client.buyMultiplier({ tier: '2x', durationSeconds: 3600 });
    expect(bought).toEqual({ path: '/multiplier/purchase', token: 'session-token' });
    expect(server.calls[1]?.body).toMatchObject({
      gameId: GAME,
      tier: '2x',
      durationSeconds: 3600,
      idempotencyKey: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
  });

  it('fails with the error the connect page answers, and with CONNECT_CANCELLED when the popup is closed', async () => {
    const client = newClient();
    const declined = client.connect();
    const state = new URL(await authorizeUrl()).searchParams.get('state');
    w.post(w.popup, answer(state, { error: 'access_denied', error_description: 'The player declined' }));
    await expect(declined).rejects.toMatchObject({ name: 'ArcadiaError', code: 'access_denied' });
    expect(w.popup.closed).toBe(true);

    w = new FakeWindow();
    vi.stubGlobal('window', w);
    const closed = client.connect();
    await authorizeUrl();
    w.popup.close();
    await expect(closed).rejects.toMatchObject({ code: 'CONNECT_CANCELLED' });
    expect(server.forms).toEqual([]);
    expect(client.connection).toBeNull();
  });

  it('refuses start() without a connection or a player token, sending nothing', async () => {
    await expect(newClient().start(GAME)).rejects.toMatchObject({ code: 'NOT_CONNECTED' });
    await expect(newClient().buyMultiplier({ tier: '2x', durationSeconds: 3600 })).rejects.toMatchObject({
      code: 'NOT_CONNECTED',
    });
    expect(server.calls).toEqual([]);
  });
});

describe('PlayClient.connect() by redirect', () => {
  it('keeps the verifier and state for the tab, leaves the page, and completeConnect() redeems the code and cleans the address', async () => {
    const client = newClient();
    void client.connect({ mode: 'redirect', redirectUri: 'https://game.test/connected' });
    await vi.waitFor(() => expect(w.location.assigned).not.toBe(''));
    expect(w.opened).toEqual([]);
    const url = new URL(w.location.assigned);
    expect(url.searchParams.get('response_mode')).toBeNull();
    const state = url.searchParams.get('state') ?? '';
    expect(JSON.parse(w.storage.get(CONNECT_STORAGE_KEY) ?? '{}')).toMatchObject({
      clientId: CLIENT,
      redirectUri: 'https://game.test/connected',
      state,
    });
    const code = server.issue(url.href);

    // The page the browser comes back to: a new client, the same tab.
    w.location.href = `https://game.test/connected?code=${code}&state=${state}&level=2#top`;
    const back = newClient();
    expect(await back.completeConnect()).toMatchObject({ gameId: GAME });
    expect(w.location.href).toBe('https://game.test/connected?level=2#top');
    expect(w.storage.has(CONNECT_STORAGE_KEY)).toBe(false);
    expect(server.forms[0]).toMatchObject({ code, redirect_uri: 'https://game.test/connected' });
    // Nothing more to complete.
    expect(await back.completeConnect()).toBeNull();
  });

  it('refuses an answer with another state, without redeeming its code', async () => {
    const client = newClient();
    void client.connect({ mode: 'redirect' });
    await vi.waitFor(() => expect(w.location.assigned).not.toBe(''));
    const code = server.issue(w.location.assigned);
    w.location.href = `${PAGE}?code=${code}&state=someone-elses`;
    await expect(newClient().completeConnect()).rejects.toMatchObject({ code: 'CONNECT_FAILED' });
    expect(server.forms).toEqual([]);
    expect(w.location.href).toBe(PAGE);
  });
});

describe('the grant’s tokens', () => {
  const connected = async (expiresIn: number) => {
    server.expiresIn = expiresIn;
    const client = newClient();
    const connecting = client.connect();
    const url = await authorizeUrl();
    w.post(w.popup, answer(new URL(url).searchParams.get('state'), { code: server.issue(url) }));
    await connecting;
    return client;
  };

  it('refreshes an access token about to expire once for concurrent calls, spending the refresh token once', async () => {
    const client = await connected(30);
    server.expiresIn = 600;
    const answers = await Promise.all([
      client.currentMultiplier(),
      client.currentMultiplier(),
      client.buyMultiplier({ tier: '1.5x', durationSeconds: 3600 }),
    ]);
    expect(answers.map((a) => (a as unknown as { token: string }).token)).toEqual([
      'access-1',
      'access-1',
      'access-1',
    ]);
    const refreshes = server.forms.filter((f) => f.grant_type === 'refresh_token');
    expect(refreshes).toEqual([
      expect.objectContaining({ refresh_token: 'refresh-0', client_id: CLIENT, grant_type: 'refresh_token' }),
    ]);
    expect(server.revoked).toBe(false);
    // Fresh for 10 minutes: no refresh.
    await client.currentMultiplier();
    expect(server.forms.filter((f) => f.grant_type === 'refresh_token')).toHaveLength(1);
  });

  it('refreshes once after a 401 and sends the call again', async () => {
    const client = await connected(600);
    server.refuse.add('access-0');
    await client.start(GAME);
    expect(server.calls.map((c) => c.authorization)).toEqual(['Bearer access-0', 'Bearer access-1']);
    expect(server.refreshGen).toBe(1);
  });

  it('forgets the grant when its refresh is refused (revoked): the player connects again', async () => {
    const client = await connected(30);
    server.revoked = true;
    await expect(client.currentMultiplier()).rejects.toMatchObject({ status: 400, code: 'invalid_grant' });
    expect(client.connection).toBeNull();
    await expect(client.start(GAME)).rejects.toMatchObject({ code: 'NOT_CONNECTED' });
  });
});
