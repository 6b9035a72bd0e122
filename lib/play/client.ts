import { type FlushLink, flushHash } from './protocol.js';

/** How the client reaches the API: fetch in production, in-process handlers in tests. */
export type Transport = (request: {
  method: 'GET' | 'POST';
  path: string;
  token: string;
  query?: Record<string, string>;
  body?: unknown;
}) => Promise<{ status: number; body: unknown }>;

export class PlayProtocolError extends Error {
  override readonly name = 'PlayProtocolError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const unwrap = <T>(res: { status: number; body: unknown }): T => {
  if (res.status >= 400) {
    const error = (res.body as { error?: { code: string; message: string } }).error;
    throw new PlayProtocolError(res.status, error?.code ?? 'UNKNOWN', error?.message ?? `HTTP ${res.status}`);
  }
  return (res.body as { data: T }).data;
};

/** An HTTP transport over fetch, for a running server (`npm run dev`). */
export const fetchTransport =
  (baseUrl: string): Transport =>
  async ({ method, path, token, query, body }) => {
    const url = new URL(path, baseUrl);
    for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
    const res = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: await res.json() };
  };

/**
 * The reference client of the play protocol: opens a session, keeps the hash chain, flushes, commits and
 * resyncs after a lost response.
 */
export class PlayClient {
  sessionId = '';
  sessionToken = '';
  seq = 0;
  head = '';
  total = 0;

  constructor(private readonly transport: Transport) {}

  /** Open a session with a player token (platform identity or the game's own auth). */
  async start(gameId: string, playerToken: string) {
    const data = unwrap<{ sessionToken: string; sessionId: string; chainSeed: string; expiresAt: string }>(
      await this.transport({
        method: 'GET',
        path: '/play/session-token',
        token: playerToken,
        query: { gameId },
      }),
    );
    Object.assign(this, {
      sessionId: data.sessionId,
      sessionToken: data.sessionToken,
      head: data.chainSeed,
      seq: 0,
      total: 0,
    });
    return data;
  }

  /** The next link of the chain for a delta (does not send it). */
  link(delta: number, clientTime = Date.now()) {
    const link: FlushLink = { seq: this.seq + 1, delta, clientTime, prevHash: this.head };
    return { ...link, hash: flushHash(this.sessionId, link) };
  }

  /** Send a flush; on success the local chain advances. */
  async flush(delta: number, clientTime = Date.now()) {
    const link = this.link(delta, clientTime);
    const data = unwrap<{
      seq: number;
      head: string;
      accepted: number;
      pendingPoints: number;
      reason: string | null;
    }>(await this.transport({ method: 'POST', path: '/play/flush', token: this.sessionToken, body: link }));
    this.seq = link.seq;
    this.head = link.hash;
    this.total += delta;
    return data;
  }

  /** Adopt the server's view after a crash or a lost response. */
  async resync() {
    const data = unwrap<{
      seq: number;
      head: string;
      claimedTotal: number;
      status: string;
      pendingPoints: number;
    }>(await this.transport({ method: 'GET', path: '/play/session-state', token: this.sessionToken }));
    Object.assign(this, { seq: data.seq, head: data.head, total: data.claimedTotal });
    return data;
  }

  /** Seal the session and count its points. */
  async commit() {
    return unwrap<{ status: string; committedPoints: number; clipped: boolean }>(
      await this.transport({
        method: 'POST',
        path: '/play/commit',
        token: this.sessionToken,
        body: { seq: this.seq, head: this.head, total: this.total },
      }),
    );
  }

  /** The player's points in this game. */
  async points() {
    return unwrap<{ today: number; allTime: number }>(
      await this.transport({ method: 'GET', path: '/play/get-points', token: this.sessionToken }),
    );
  }
}
