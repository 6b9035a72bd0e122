// The browser play client (docs/play-protocol.md): opens a session, keeps the hash chain, paces flushes and
// commits within the per-session limits (1 flush per second, 1 commit per 5 seconds), and resyncs by itself
// after a lost answer. WebCrypto and fetch only, so it runs in browsers as in Node. `connect()` gets the player's
// grant for the game (connect.ts): the session opens with the grant's access token, never the player's identity token.
import createClient, { type Client } from 'openapi-fetch';
import { unwrap } from './client.js';
import { type Connection, type ConnectOptions, ConnectSession } from './connect.js';
import { ArcadiaError } from './errors.js';
import type { operations, paths } from './openapi.generated.js';
import { createTransport, type Fetch } from './transport.js';

/** The `data` of an operation's 200 answer, from the generated types. */
type Ok<Op extends keyof operations> = operations[Op]['responses'] extends {
  200: { content: { 'application/json': { data: infer D } } };
}
  ? D
  : never;
export type SessionStart = Ok<'getSessionToken'>;
export type SessionState = Ok<'getSessionState'>;
export type CommitResult = Ok<'commitSession'>;
export type PlayerPoints = Ok<'getPlayerPoints'>;
export type Leaderboard = Ok<'getLeaderboard'>;
export type BoardEntry = Leaderboard['entries'][number];
export type MyRank = Ok<'getMyRank'>;
export type DisplayNameResult = Ok<'setMyDisplayName'>;
export type Tournament = Ok<'listTournaments'>[number];
export type TournamentPeriod = NonNullable<Tournament['current']>;
export type TournamentEntry = Ok<'joinTournament'>;
export type TournamentBoard = Ok<'getTournamentBoard'>;
export type TournamentResults = Ok<'getTournamentPeriodResults'>;
export type MultiplierPurchase = Ok<'purchaseMultiplier'>;
export type CurrentMultiplier = Ok<'getCurrentMultiplier'>;
type PurchaseBody = operations['purchaseMultiplier']['requestBody']['content']['application/json'];
/** A multiplier to buy: its tier and window; `idempotencyKey` (default a new UUID) to retry the same purchase. */
export type MultiplierOrder = Omit<PurchaseBody, 'gameId' | 'idempotencyKey'> & { idempotencyKey?: string };
/** A page of a tournament period's board: `limit` entries (1–100, default 10) from rank `offset + 1`; `me` adds
 * the player's own rank with its neighbours. */
export interface TournamentBoardQuery {
  limit?: number;
  offset?: number;
  me?: boolean;
}
/** Which board: the daily one (a UTC day `yyyy-mm-dd`, today by default) or the all-time one. */
export interface BoardQuery {
  period?: 'daily' | 'alltime';
  day?: string;
}
/** A page of a board: `limit` entries (1–100, default 10) from rank `offset + 1`. */
export interface BoardPageQuery extends BoardQuery {
  limit?: number;
  offset?: number;
}
export interface FlushLink {
  seq: number;
  delta: number;
  clientTime: number;
  prevHash: string;
  hash: string;
}
export type FlushResult = Ok<'flushPoints'>;

export interface PlayClientOptions {
  /** The API's base URL. */
  baseUrl: string;
  /** The game's OAuth client id, for `connect()` (POST /games/oauth-clients/{gameId} registers one). */
  clientId?: string;
  /** Keep within the per-session limits by waiting (default true); false sends at once (a 429 may follow). */
  pace?: boolean;
  /** Retries of one request (see TransportOptions.maxRetries; default 2). */
  maxRetries?: number;
  fetch?: Fetch;
}

/** Milliseconds between two flushes and two commits: the limits plus a margin for clock granularity. */
export const FLUSH_INTERVAL_MS = 1050;
export const COMMIT_INTERVAL_MS = 5050;

const encoder = new TextEncoder();
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** h(n) = hex sha256("arcadia-flush-v1|sessionId|seq|delta|clientTime|prevHash") (play protocol §2). */
export const flushHash = async (sessionId: string, link: Omit<FlushLink, 'hash'>): Promise<string> => {
  const text = `arcadia-flush-v1|${sessionId}|${link.seq}|${link.delta}|${link.clientTime}|${link.prevHash}`;
  const digest = await crypto.subtle.digest('SHA-256', encoder.encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
};

/** The answer was lost or the chains diverged: the server's state decides. */
const needsResync = (error: unknown) =>
  error instanceof ArcadiaError &&
  (error.status === 0 || error.code === 'FLUSH_OUT_OF_ORDER' || error.code === 'CHAIN_BROKEN');

export class PlayClient {
  sessionId = '';
  sessionToken = '';
  /** The game of the session (set by start()). */
  gameId = '';
  seq = 0;
  head = '';
  /** Sum of every delta the server holds for this session (the commit's `total`). */
  total = 0;
  /** Points of `add` not flushed yet. */
  buffered = 0;
  private token = '';
  private pendingPoints = 0;
  private readonly api: Client<paths>;
  private readonly grant: ConnectSession;
  private readonly pace: boolean;
  private lastFlushAt = 0;
  private lastCommitAt = 0;
  // One request at a time: the chain advances strictly in order.
  private queue: Promise<unknown> = Promise.resolve();

  constructor(options: PlayClientOptions) {
    this.pace = options.pace !== false;
    const baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.grant = new ConnectSession({
      baseUrl,
      ...(options.clientId ? { clientId: options.clientId } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    this.api = createClient<paths>({
      baseUrl,
      fetch: createTransport({
        baseUrl,
        bearerToken: () => this.token,
        ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
        ...(options.fetch ? { fetch: options.fetch } : {}),
      }),
    });
  }

  private run<T>(task: () => Promise<T>): Promise<T> {
    const next = this.queue.then(task, task);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** The calls of a session before start(): a clear error at once, not the API's 401 for a missing token. */
  private started(call: string) {
    if (!this.sessionToken)
      throw new ArcadiaError(
        0,
        'SESSION_NOT_STARTED',
        `PlayClient.${call}() needs a session: call start(gameId, playerToken) first`,
      );
  }

  private async wait(last: number, interval: number) {
    const due = last + interval - Date.now();
    if (this.pace && last > 0 && due > 0) await sleep(due);
  }

  /**
   * Ask the player to connect this game (Connect with Arcadia): the platform's connect page signs the player in and
   * shows what the game asks (`scopes`, default play, read and join; `multipliers:buy` with the daily limit the player
   * sets). Popup by default: call it from a click. `mode: 'redirect'` leaves the page; the page at the redirect URI
   * calls `completeConnect()`. Errors: ArcadiaError `CONNECT_CANCELLED` (popup closed), `POPUP_BLOCKED`,
   * `access_denied` (the player declined), other OAuth codes (`invalid_grant`…).
   */
  connect(options: ConnectOptions = {}): Promise<Connection> {
    return this.grant.connect(options);
  }

  /**
   * On the page the redirect flow returns to: checks the answer in the address against the state this tab stored,
   * redeems the code and removes `code` and `state` from the address. Null when the address carries no answer.
   */
  completeConnect(address?: string): Promise<Connection | null> {
    return this.grant.complete(address);
  }

  /** The player's grant (game, scopes, access token expiry), or null when not connected. */
  get connection(): Connection | null {
    return this.grant.connection;
  }

  /** Forget the grant's tokens on this page (the player revokes the grant itself in their Arcadia account). */
  disconnect() {
    this.grant.forget();
  }

  /**
   * Open a session: with the connected grant's access token (after `connect()`), or with a token of your game's own
   * auth (a JWT of its `jwksUrl`, which plays but never spends). Retries reuse one idempotency key.
   */
  start(gameId: string, playerToken?: string, idempotencyKey?: string): Promise<SessionStart> {
    return this.run(async () => {
      if (!playerToken && !this.grant.connection)
        throw new ArcadiaError(
          0,
          'NOT_CONNECTED',
          "PlayClient.start() needs connect() first, or your game's own player token",
        );
      const open = async (token: string) =>
        unwrap(
          await this.api.GET('/play/session-token', {
            params: { query: { gameId, ...(idempotencyKey ? { idempotencyKey } : {}) } },
            headers: { authorization: `Bearer ${token}` },
          }),
        );
      const data = playerToken ? await open(playerToken) : await this.grant.withAccessToken(open);
      Object.assign(this, {
        gameId,
        sessionId: data.sessionId,
        sessionToken: data.sessionToken,
        token: data.sessionToken,
        head: data.chainSeed,
        seq: 0,
        total: 0,
        buffered: 0,
        pendingPoints: 0,
        lastFlushAt: 0,
        lastCommitAt: 0,
      });
      return data;
    });
  }

  /** The next link of the chain for a delta (does not send it). */
  async link(delta: number, clientTime = Date.now()): Promise<FlushLink> {
    const link = { seq: this.seq + 1, delta, clientTime, prevHash: this.head };
    return { ...link, hash: await flushHash(this.sessionId, link) };
  }

  private async send(delta: number, clientTime?: number): Promise<FlushResult> {
    await this.wait(this.lastFlushAt, FLUSH_INTERVAL_MS);
    const link = await this.link(delta, clientTime);
    this.lastFlushAt = Date.now();
    const data: FlushResult = unwrap(await this.api.POST('/play/flush', { body: link }));
    Object.assign(this, { seq: link.seq, head: link.hash, total: this.total + delta });
    this.pendingPoints = data.pendingPoints;
    return data;
  }

  /**
   * Send `delta` points. After a lost answer or a diverged chain it resyncs: if the server already holds this
   * flush it answers from the server's state (accepted = growth of the pending points), else it sends the
   * delta again on the server's head.
   */
  flush(delta: number, clientTime?: number): Promise<FlushResult> {
    return this.run(async () => {
      this.started('flush');
      const before = this.pendingPoints;
      const expected = await this.link(delta, clientTime ?? Date.now());
      try {
        return await this.send(delta, expected.clientTime);
      } catch (error) {
        if (!needsResync(error)) throw error;
      }
      const state = await this.state();
      if (state.seq === expected.seq && state.head === expected.hash)
        return {
          seq: state.seq,
          head: state.head,
          accepted: state.pendingPoints - before,
          pendingPoints: state.pendingPoints,
          reason: null,
        };
      return this.send(delta);
    });
  }

  /** Collect points; `flushPending` sends them. */
  add(points: number) {
    this.buffered += points;
  }

  /** Flush what `add` collected (nothing when empty); a game calls it on a timer or at the end. */
  flushPending(): Promise<FlushResult | null> {
    if (this.buffered === 0) return Promise.resolve(null);
    const delta = this.buffered;
    this.buffered = 0;
    return this.flush(delta).catch((error: unknown) => {
      this.buffered += delta;
      throw error;
    });
  }

  private async state() {
    this.started('resync');
    const data = unwrap(await this.api.GET('/play/session-state'));
    Object.assign(this, {
      seq: data.seq,
      head: data.head,
      total: data.claimedTotal,
      pendingPoints: data.pendingPoints,
    });
    return data;
  }

  /** Adopt the server's view of the session (after a crash or a lost answer). */
  resync(): Promise<SessionState> {
    return this.run(() => this.state());
  }

  /** Seal the session and count its points; a lost answer is asked again (the server replays it). */
  commit(): Promise<CommitResult> {
    return this.run(async () => {
      this.started('commit');
      for (let attempt = 0; ; attempt++) {
        await this.wait(this.lastCommitAt, COMMIT_INTERVAL_MS);
        this.lastCommitAt = Date.now();
        try {
          return unwrap(
            await this.api.POST('/play/commit', {
              body: { seq: this.seq, head: this.head, total: this.total },
            }),
          );
        } catch (error) {
          if (attempt > 0 || !needsResync(error)) throw error;
          if ((error as ArcadiaError).status !== 0) await this.state();
        }
      }
    });
  }

  /**
   * A page of the game's daily or all-time board, read with the session token (no developer key): entries with
   * rank, points, the identifier your studio knows each player by and their display names. Not queued behind
   * flushes and commits (it does not touch the chain); 10 per 10 seconds per player.
   */
  async leaderboard(query: BoardPageQuery = {}): Promise<Leaderboard> {
    this.started('leaderboard');
    return unwrap(
      await this.api.GET('/play/leaderboard/{gameId}', {
        params: { path: { gameId: this.gameId }, query },
      }),
    );
  }

  /** The player's own rank and points on the daily or all-time board, with up to two neighbours each side. */
  async myRank(query: BoardQuery = {}): Promise<MyRank> {
    this.started('myRank');
    return unwrap(
      await this.api.GET('/play/leaderboard/{gameId}/me', {
        params: { path: { gameId: this.gameId }, query },
      }),
    );
  }

  /**
   * Set the player's display name in this game (null removes it). Moderated: 1–32 letters, digits, single spaces
   * and - _ . ' ! ? ( ) & (ArcadiaError INVALID_DISPLAY_NAME saying why); DISPLAY_NAME_LOCKED when the studio
   * locked the name.
   */
  async setDisplayName(displayName: string | null): Promise<DisplayNameResult> {
    this.started('setDisplayName');
    return unwrap(
      await this.api.PUT('/play/players/{gameId}/me/name', {
        params: { path: { gameId: this.gameId } },
        body: { displayName },
      }),
    );
  }

  /**
   * The game's tournaments the player sees (cancelled ones are hidden), each with its `current` (running) and
   * `next` period: up to `limit` (1–100, default 20).
   */
  async tournaments(query: { limit?: number } = {}): Promise<Tournament[]> {
    this.started('tournaments');
    return unwrap(
      await this.api.GET('/tournaments/{gameId}', { params: { path: { gameId: this.gameId }, query } }),
    );
  }

  /** One tournament of the game, with its current and next period (NOT_FOUND when cancelled). */
  async tournament(tournamentId: string): Promise<Tournament> {
    this.started('tournament');
    return unwrap(
      await this.api.GET('/tournaments/{gameId}/{tournamentId}', {
        params: { path: { gameId: this.gameId, tournamentId } },
      }),
    );
  }

  /**
   * Enter the player in the tournament's running period, else its next one (joining again answers the same
   * entry). TOURNAMENT_FULL when the period has its maximum of entrants, TOURNAMENT_NOT_RUNNING when no period
   * is left to join.
   */
  async joinTournament(tournamentId: string): Promise<TournamentEntry> {
    this.started('joinTournament');
    return unwrap(
      await this.api.POST('/tournaments/{gameId}/{tournamentId}/join', {
        params: { path: { gameId: this.gameId, tournamentId } },
      }),
    );
  }

  /** The player's tournament entries in this game (one per period entered): points and attempts counted. */
  async myTournamentEntries(query: { limit?: number } = {}): Promise<TournamentEntry[]> {
    this.started('myTournamentEntries');
    return unwrap(
      await this.api.GET('/tournament-entries/{gameId}/me', {
        params: { path: { gameId: this.gameId }, query },
      }),
    );
  }

  /**
   * A page of a period's board (running, or ended within the studio's retention; `periodId` is the period's `id`,
   * its start): entries with rank, points, the studio's identifier and display name; with `me: true` also the
   * player's own rank (null without points there) and up to two neighbours each side.
   */
  async tournamentBoard(
    tournamentId: string,
    periodId: string,
    { me, ...page }: TournamentBoardQuery = {},
  ): Promise<TournamentBoard> {
    this.started('tournamentBoard');
    return unwrap(
      await this.api.GET('/tournaments/{gameId}/{tournamentId}/periods/{periodId}/board', {
        params: {
          path: { gameId: this.gameId, tournamentId, periodId },
          query: { ...page, ...(me === undefined ? {} : { me: me ? 'true' : 'false' }) },
        },
      }),
    );
  }

  /**
   * A period's results once it closed (its end plus the payout delay): the frozen ranks it pays, each prize and its
   * transfer on chain (`status` `open` until then, `paying`, `paid`).
   */
  async tournamentResults(tournamentId: string, periodId: string): Promise<TournamentResults> {
    this.started('tournamentResults');
    return unwrap(
      await this.api.GET('/tournaments/{gameId}/{tournamentId}/periods/{periodId}/results', {
        params: { path: { gameId: this.gameId, tournamentId, periodId } },
      }),
    );
  }

  /** The session token once started, else the grant's access token (refreshed as needed). */
  private asPlayer<T>(call: string, send: (token: string) => Promise<T>): Promise<T> {
    if (this.sessionToken) return send(this.sessionToken);
    if (this.grant.connection) return this.grant.withAccessToken(send);
    return Promise.reject(
      new ArcadiaError(0, 'NOT_CONNECTED', `PlayClient.${call}() needs connect() or start() first`),
    );
  }

  private get playerGameId() {
    return this.gameId || this.grant.connection?.gameId || '';
  }

  /**
   * Buy a score multiplier for the player in this game, paid from the player's wallet: within the daily spending
   * limit the player set when connecting (403 `PURCHASE_ALLOWANCE_EXCEEDED` above what is left today,
   * `PURCHASE_ALLOWANCE_REQUIRED` without a limit; nothing is charged), with the `multipliers:buy` scope. `status`
   * `pending` (202): not confirmed yet, call again with the same `idempotencyKey` for the outcome.
   */
  buyMultiplier(order: MultiplierOrder): Promise<MultiplierPurchase> {
    const { idempotencyKey = crypto.randomUUID(), ...rest } = order;
    const body: PurchaseBody = { ...rest, gameId: this.playerGameId, idempotencyKey };
    return this.asPlayer('buyMultiplier', async (token) =>
      unwrap(
        await this.api.POST('/multiplier/purchase', { body, headers: { authorization: `Bearer ${token}` } }),
      ),
    );
  }

  /** The player's active multiplier in this game and its expiry, or `active: false`. */
  currentMultiplier(): Promise<CurrentMultiplier> {
    return this.asPlayer('currentMultiplier', async (token) =>
      unwrap(
        await this.api.GET('/multiplier/current', {
          params: { query: { gameId: this.playerGameId } },
          headers: { authorization: `Bearer ${token}` },
        }),
      ),
    );
  }

  /** The player's committed points in this game: today (UTC) and all time. */
  points(): Promise<PlayerPoints> {
    return this.run(async () => {
      this.started('points');
      return unwrap(await this.api.GET('/play/get-points'));
    });
  }
}
