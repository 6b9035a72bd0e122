// Who is calling, as every domain sees it: the HTTP layer establishes it, use cases receive it.
import type { RateLimitSpec } from './contract.js';
import type { Scope } from './scopes.js';

/** Who made the request, as established by one of the contract's auth schemes. */
export interface AuthContext {
  scheme: 'hmac' | 'bearer' | 'session' | 'grant';
  /** Arc ID of the caller. */
  userId: string;
  apiKey?: string;
  /** Identity-provider subject (`did:<idp>:<id>`) for bearer callers. */
  subject?: string;
  /** Play session for session-token callers. */
  sessionId?: string;
  /** The one game a session token, a grant's access token or a game's own JWT speaks for. */
  gameId?: string;
  /** What a game-scoped token (session or grant) may do; absent for the player's and developer's own credentials. */
  scopes?: readonly Scope[];
  /** The player's grant behind a grant access token or a session opened with one. */
  grantId?: string;
}

/** What an authenticator and a rate limiter see of the request. */
export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string | undefined>;
  rawBody: Buffer;
  sourceIp: string;
  requestId: string;
  query: Record<string, string | undefined>;
  /** The query string as sent, without `?` (`''` for none): what a strict HMAC signature covers. */
  rawQuery: string;
}

export type Authenticator = (request: RawRequest) => Promise<AuthContext>;

/** Spends one unit of a budget; throws RATE_LIMITED beyond it. Returns values for the RateLimit-* headers. */
export type RateLimiter = (
  spec: RateLimitSpec & { name: string },
  key: string,
) => Promise<{ limit: number; remaining: number; resetSeconds: number }>;

/** Whether the caller is a game acting for a player (a session token or a grant's access token), not the player. */
export const isGameScoped = (auth: Pick<AuthContext, 'scheme'> | undefined): boolean =>
  auth?.scheme === 'session' || auth?.scheme === 'grant';
