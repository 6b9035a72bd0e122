// Connect with Arcadia (docs/connect.md): a game's page asks the player for a grant to act in one game, by the
// authorization code flow with PKCE S256 (oauth4webapi), in a popup or by a redirect. The page then holds the grant's
// access and refresh tokens, never the player's identity token: in memory only, the access token refreshed before it
// expires, one refresh at a time (a refresh token is good once: spending it twice revokes the grant).
import * as oauth from 'oauth4webapi';
import { ArcadiaError, networkError } from './errors.js';
import type { Fetch } from './transport.js';

/** What a game may do for the player (the connect page shows each in plain words). */
export type ConnectScope = 'play' | 'read' | 'tournaments:join' | 'multipliers:buy';
/** The scopes `connect()` asks by default: play, read and join, nothing that spends. */
export const DEFAULT_CONNECT_SCOPES: readonly ConnectScope[] = ['play', 'read', 'tournaments:join'];

export interface ConnectOptions {
  /** The game's OAuth client (POST /games/oauth-clients/{gameId}); default: the PlayClient's `clientId`. */
  clientId?: string;
  /** Default DEFAULT_CONNECT_SCOPES; add `multipliers:buy` to buy within the limit the player sets. */
  scopes?: readonly ConnectScope[];
  /** `popup` (default): the connect page opens in a popup; `redirect`: this page goes there and comes back. */
  mode?: 'popup' | 'redirect';
  /** One of the client's registered redirect URIs; default this page's address without query and fragment. */
  redirectUri?: string;
  /** Popup only: give up (and close it) after this many milliseconds (default 10 minutes). */
  timeoutMs?: number;
}

/** The player's grant as the page holds it. */
export interface Connection {
  gameId: string;
  scopes: ConnectScope[];
  /** When the access token expires (Unix ms); the client refreshes it before. */
  expiresAt: number;
}

interface Tokens extends Connection {
  accessToken: string;
  refreshToken: string;
}

/** What a redirect flow keeps in sessionStorage until the page it returns to completes it. */
interface Pending {
  clientId: string;
  redirectUri: string;
  state: string;
  verifier: string;
}

// The few browser APIs the flow uses, typed here so that the module compiles without the DOM library too.
interface PopupWindow {
  readonly closed: boolean;
  close(): void;
  location: { href: string };
}
interface MessageLike {
  source: unknown;
  data: unknown;
}
type MessageListener = (event: MessageLike) => void;
interface BrowserWindow {
  open(url: string, target: string, features: string): PopupWindow | null;
  addEventListener(type: 'message', listener: MessageListener): void;
  removeEventListener(type: 'message', listener: MessageListener): void;
  location: { href: string; origin: string; pathname: string; assign(url: string): void };
  sessionStorage: {
    getItem(key: string): string | null;
    setItem(key: string, value: string): void;
    removeItem(key: string): void;
  };
  history: { replaceState(data: unknown, unused: string, url?: string): void };
}

/** Where a redirect flow's verifier and state wait for the return (this tab only). */
export const CONNECT_STORAGE_KEY = 'arcadia.connect.pending';
/** Refresh the access token when less than this is left, so a request never leaves with an expiring one. */
const REFRESH_MARGIN_MS = 60_000;
const POPUP_TIMEOUT_MS = 600_000;
/** After the popup closed, how long its last message may still take to arrive. */
const CLOSED_GRACE_MS = 1_000;
const POPUP_FEATURES = 'popup,width=480,height=720';
/** The parameters of an authorization response, removed from the page's address once read. */
const RESPONSE_PARAMS = ['code', 'state', 'error', 'error_description', 'error_uri', 'iss'];

const browser = (): BrowserWindow => {
  const w = (globalThis as { window?: BrowserWindow }).window;
  if (!w) throw new ArcadiaError(0, 'NOT_A_BROWSER', 'Connecting needs a browser window');
  return w;
};

const isScope = (value: string): value is ConnectScope =>
  value === 'play' || value === 'read' || value === 'tournaments:join' || value === 'multipliers:buy';

/** The flow's failures as ArcadiaError: the server's OAuth errors keep their code (`invalid_grant`, `access_denied`). */
const failure = (error: unknown): ArcadiaError => {
  if (error instanceof ArcadiaError) return error;
  if (error instanceof oauth.ResponseBodyError)
    return new ArcadiaError(error.status, error.error, error.error_description ?? error.message, error.cause);
  if (error instanceof oauth.AuthorizationResponseError)
    return new ArcadiaError(0, error.error, error.error_description ?? error.message);
  if (error instanceof oauth.OperationProcessingError || error instanceof oauth.UnsupportedOperationError)
    return new ArcadiaError(0, 'CONNECT_FAILED', error.message);
  return networkError(error);
};

export interface ConnectSessionOptions {
  baseUrl: string;
  clientId?: string;
  fetch?: Fetch;
}

/** The connect flow and the grant's tokens of one page (PlayClient.connect uses it). */
export class ConnectSession {
  private tokens: Tokens | undefined;
  /** The client the tokens were issued to (a refresh names it). */
  private clientId = '';
  private refreshing: Promise<Tokens> | undefined;
  private readonly as: oauth.AuthorizationServer;
  private readonly request: oauth.TokenEndpointRequestOptions;

  constructor(private readonly options: ConnectSessionOptions) {
    const baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.as = {
      issuer: baseUrl,
      authorization_endpoint: `${baseUrl}/oauth/authorize`,
      token_endpoint: `${baseUrl}/oauth/token`,
    };
    const send = options.fetch;
    // Plain http only to this machine (the local stack); anywhere else the token endpoint must be https.
    const { protocol, hostname } = new URL(baseUrl);
    const loopback = protocol === 'http:' && ['localhost', '127.0.0.1', '[::1]'].includes(hostname);
    this.request = {
      ...(loopback ? { [oauth.allowInsecureRequests]: true } : {}),
      ...(send
        ? { [oauth.customFetch]: (url: string, init: RequestInit) => send(new Request(url, init)) }
        : {}),
    };
  }

  /** The grant, or null before connecting (and after its refresh was refused). */
  get connection(): Connection | null {
    const t = this.tokens;
    return t ? { gameId: t.gameId, scopes: [...t.scopes], expiresAt: t.expiresAt } : null;
  }

  /** Forget the grant's tokens (the player revokes the grant itself on the platform). */
  forget() {
    this.tokens = undefined;
  }

  private client(clientId: string | undefined): oauth.Client {
    const id = clientId ?? this.options.clientId;
    if (!id)
      throw new ArcadiaError(
        0,
        'CONNECT_CLIENT_REQUIRED',
        "connect() needs the game's OAuth client id (clientId)",
      );
    return { client_id: id };
  }

  private authorizeUrl(
    client: oauth.Client,
    params: { redirectUri: string; state: string; challenge: string; scopes: readonly ConnectScope[] },
    mode: 'popup' | 'redirect',
  ) {
    const url = new URL(this.as.authorization_endpoint ?? '');
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: params.redirectUri,
      state: params.state,
      scope: params.scopes.join(' '),
      code_challenge: params.challenge,
      code_challenge_method: 'S256',
      ...(mode === 'popup' ? { response_mode: 'web_message' } : {}),
    }).toString();
    return url.href;
  }

  /**
   * Popup: opens the connect page (synchronously, so call it from the click that asks), waits for its answer from
   * that window only, and redeems the code. Redirect: stores the verifier and state for this tab and leaves the page
   * (the promise never settles); the page at the redirect URI calls `complete()`.
   */
  async connect(options: ConnectOptions = {}): Promise<Connection> {
    const w = browser();
    const client = this.client(options.clientId);
    const mode = options.mode ?? 'popup';
    const redirectUri = options.redirectUri ?? `${w.location.origin}${w.location.pathname}`;
    const scopes = options.scopes ?? DEFAULT_CONNECT_SCOPES;
    // Before anything asynchronous: a popup opened later than the click is blocked.
    const popup = mode === 'popup' ? w.open('', 'arcadia-connect', POPUP_FEATURES) : null;
    if (mode === 'popup' && !popup)
      throw new ArcadiaError(
        0,
        'POPUP_BLOCKED',
        'The browser blocked the connect popup: call connect() from a click',
      );
    try {
      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const challenge = await oauth.calculatePKCECodeChallenge(verifier);
      const url = this.authorizeUrl(client, { redirectUri, state, challenge, scopes }, mode);
      if (!popup) {
        const pending: Pending = { clientId: client.client_id, redirectUri, state, verifier };
        w.sessionStorage.setItem(CONNECT_STORAGE_KEY, JSON.stringify(pending));
        w.location.assign(url);
        return await new Promise<never>(() => undefined);
      }
      popup.location.href = url;
      const response = await popupResponse(w, popup, state, options.timeoutMs ?? POPUP_TIMEOUT_MS);
      return await this.redeem(client, oauth.validateAuthResponse(this.as, client, response, state), {
        redirectUri,
        verifier,
      });
    } catch (error) {
      popup?.close();
      throw failure(error);
    }
  }

  /**
   * The redirect flow's return: reads `code` and `state` (or `error`) from the address, removes them from it, checks
   * the state this tab stored and redeems the code. Null when the address carries no answer of a flow this tab began.
   */
  async complete(address?: string): Promise<Connection | null> {
    const w = browser();
    const stored = w.sessionStorage.getItem(CONNECT_STORAGE_KEY);
    const url = new URL(address ?? w.location.href);
    if (!stored || !(url.searchParams.has('code') || url.searchParams.has('error'))) return null;
    w.sessionStorage.removeItem(CONNECT_STORAGE_KEY);
    const params = new URLSearchParams(url.searchParams);
    // A code is single-use, but it should not stay in the history or reach a bookmark.
    for (const name of RESPONSE_PARAMS) url.searchParams.delete(name);
    w.history.replaceState(null, '', url.href);
    try {
      const pending = JSON.parse(stored) as Pending;
      const client = this.client(pending.clientId);
      return await this.redeem(
        client,
        oauth.validateAuthResponse(this.as, client, params, pending.state),
        pending,
      );
    } catch (error) {
      throw failure(error);
    }
  }

  private async redeem(
    client: oauth.Client,
    params: URLSearchParams,
    pending: { redirectUri: string; verifier: string },
  ): Promise<Connection> {
    const response = await oauth.authorizationCodeGrantRequest(
      this.as,
      client,
      oauth.None(),
      params,
      pending.redirectUri,
      pending.verifier,
      this.request,
    );
    this.keep(client, await oauth.processAuthorizationCodeResponse(this.as, client, response));
    return this.connection as Connection;
  }

  private keep(client: oauth.Client, answer: oauth.TokenEndpointResponse): Tokens {
    const { refresh_token: refreshToken, game_id: gameId, expires_in: expiresIn = 0 } = answer;
    if (typeof refreshToken !== 'string' || typeof gameId !== 'string')
      throw new ArcadiaError(0, 'CONNECT_FAILED', 'The token answer has no refresh_token or game_id');
    this.clientId = client.client_id;
    this.tokens = {
      accessToken: answer.access_token,
      refreshToken,
      gameId,
      scopes: (answer.scope ?? '').split(' ').filter(isScope),
      expiresAt: Date.now() + expiresIn * 1000,
    };
    return this.tokens;
  }

  private held(): Tokens {
    if (!this.tokens)
      throw new ArcadiaError(
        0,
        'NOT_CONNECTED',
        'Not connected: call connect() (or completeConnect()) first',
      );
    return this.tokens;
  }

  /** A refresh, shared by every caller while it runs: the refresh token is spent once. */
  private refresh(): Promise<Tokens> {
    this.refreshing ??= this.rotate().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async rotate(): Promise<Tokens> {
    const { refreshToken } = this.held();
    const client = { client_id: this.clientId };
    try {
      const response = await oauth.refreshTokenGrantRequest(
        this.as,
        client,
        oauth.None(),
        refreshToken,
        this.request,
      );
      return this.keep(client, await oauth.processRefreshTokenResponse(this.as, client, response));
    } catch (error) {
      // Refused (revoked, replaced, the client removed): the grant is gone, the player connects again. A lost answer
      // keeps the tokens: the next call tries again.
      if (error instanceof oauth.ResponseBodyError) this.tokens = undefined;
      throw failure(error);
    }
  }

  /** A valid access token: the held one, or a fresh one when it expires within a minute. */
  async accessToken(): Promise<string> {
    const tokens = this.held();
    if (this.refreshing) return (await this.refreshing).accessToken;
    if (tokens.expiresAt - REFRESH_MARGIN_MS > Date.now()) return tokens.accessToken;
    return (await this.refresh()).accessToken;
  }

  /** After a 401 with `stale`: a new access token, unless another call already replaced it. */
  async renew(stale: string): Promise<string> {
    const tokens = this.held();
    if (this.refreshing) return (await this.refreshing).accessToken;
    if (tokens.accessToken !== stale) return tokens.accessToken;
    return (await this.refresh()).accessToken;
  }

  /** Run `call` with the access token; on a 401, once more with a refreshed one. */
  async withAccessToken<T>(call: (token: string) => Promise<T>): Promise<T> {
    const token = await this.accessToken();
    try {
      return await call(token);
    } catch (error) {
      if (!(error instanceof ArcadiaError) || error.status !== 401) throw error;
      return call(await this.renew(token));
    }
  }
}

/** The popup's answer: a message from that window with the expected type and state; it closing is a cancel. */
const popupResponse = (
  w: BrowserWindow,
  popup: PopupWindow,
  state: string,
  timeoutMs: number,
): Promise<URLSearchParams> =>
  new Promise((resolve, reject) => {
    const timers: ReturnType<typeof setTimeout>[] = [];
    const done = () => {
      w.removeEventListener('message', listener);
      clearInterval(watch);
      for (const timer of timers) clearTimeout(timer);
    };
    const listener: MessageListener = (event) => {
      if (event.source !== popup) return;
      const data = event.data as { type?: unknown; response?: Record<string, unknown> } | null;
      const response = data?.response;
      if (data?.type !== 'authorization_response' || typeof response !== 'object' || response === null)
        return;
      if (response.state !== state) return;
      done();
      const params = new URLSearchParams();
      for (const [key, value] of Object.entries(response))
        if (typeof value === 'string') params.set(key, value);
      resolve(params);
    };
    const stop = (code: string, message: string) => {
      done();
      reject(new ArcadiaError(0, code, message));
    };
    w.addEventListener('message', listener);
    let closedSeen = false;
    const watch = setInterval(() => {
      if (!popup.closed || closedSeen) return;
      closedSeen = true;
      timers.push(
        setTimeout(() => stop('CONNECT_CANCELLED', 'The connect window was closed'), CLOSED_GRACE_MS),
      );
    }, 250);
    timers.push(
      setTimeout(() => {
        popup.close();
        stop('CONNECT_TIMEOUT', 'No answer from the connect window in time');
      }, timeoutMs),
    );
  });
