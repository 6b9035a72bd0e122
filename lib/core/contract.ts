import type * as z from 'zod/mini';
import type { ErrorCode } from './errors.js';
import type { Scope } from './scopes.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * How a caller proves who they are: an HMAC-signed request, the player's identity-provider token, a play session
 * token, or a game-scoped access token of a player's grant (POST /oauth/token, docs/connect.md).
 */
export type AuthScheme = 'hmac' | 'bearer' | 'session' | 'grant';

/** A per-route rate limit (docs/decisions.md, "Rate limits"). `key` says whose budget a request spends. */
export interface RateLimitSpec {
  limit: number;
  windowSeconds: number;
  key: 'ip' | 'apiKey' | 'session' | 'user';
}

/**
 * One operation of the public API: the single source of truth for routing, validation, types and OpenAPI.
 * `operationId` is also the function name in serverless.yml.
 */
export interface Contract<
  TParams extends z.core.$ZodType = z.core.$ZodType,
  TQuery extends z.core.$ZodType = z.core.$ZodType,
  TBody extends z.core.$ZodType = z.core.$ZodType,
  TResponse extends z.core.$ZodType = z.core.$ZodType,
  TAuth extends readonly AuthScheme[] = readonly AuthScheme[],
> {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI-style path, e.g. `/games/id/{id}`; identical to the route in serverless.yml. */
  path: string;
  tags: string[];
  summary: string;
  description?: string;
  /** Accepted schemes, any one suffices; empty means public. */
  auth: TAuth;
  /**
   * What a game-scoped token (a grant's access token, or a session token) needs to call this route: naming it
   * admits grant access tokens that carry it, and session tokens where `auth` lists `session`. Without it, a
   * game-scoped token is refused with 403 INSUFFICIENT_SCOPE.
   */
  scope?: Scope;
  params?: TParams;
  query?: TQuery;
  body?: TBody;
  /** Media types the body may come in. Defaults to JSON only. */
  bodyMediaTypes?: Array<'application/json' | 'multipart/form-data' | 'application/x-www-form-urlencoded'>;
  response: TResponse;
  successStatus?: 200 | 201 | 202 | 302;
  /**
   * Other statuses the operation answers with the same media type (documented in OpenAPI): more successes, or an
   * answer in a format its clients expect instead of the standard error (an OAuth error, an HTML page).
   */
  alsoAnswers?: Array<{ status: 200 | 201 | 202 | 400; description: string }>;
  /** Response media type when not JSON (the interactive reference page). */
  responseMediaType?: string;
  /** Error codes this operation documents, beyond the ones every operation can answer. */
  errors: ErrorCode[];
  rateLimit?: RateLimitSpec;
  /** A representative request: drives the sample event in events/ and the OpenAPI example. */
  example?: { params?: Record<string, string>; query?: Record<string, string>; body?: unknown };
  /** Largest accepted raw body in bytes (413 beyond). Defaults to 1 MiB. */
  maxBodyBytes?: number;
}

type Out<T> = T extends z.core.$ZodType ? z.output<T> : undefined;

export type ParamsOf<C> = C extends Contract<infer P> ? Out<P> : never;
export type QueryOf<C> = C extends Contract<z.core.$ZodType, infer Q> ? Out<Q> : never;
export type BodyOf<C> = C extends Contract<z.core.$ZodType, z.core.$ZodType, infer B> ? Out<B> : never;
export type ResponseOf<C> =
  C extends Contract<z.core.$ZodType, z.core.$ZodType, z.core.$ZodType, infer R> ? z.input<R> : never;
export type AuthSchemesOf<C> =
  C extends Contract<z.core.$ZodType, z.core.$ZodType, z.core.$ZodType, z.core.$ZodType, infer A> ? A : never;

/** Identity helper that keeps the literal types of a contract. */
export const defineContract = <
  TParams extends z.core.$ZodType = z.ZodMiniUndefined,
  TQuery extends z.core.$ZodType = z.ZodMiniUndefined,
  TBody extends z.core.$ZodType = z.ZodMiniUndefined,
  TResponse extends z.core.$ZodType = z.core.$ZodType,
  const TAuth extends readonly AuthScheme[] = readonly [],
>(
  contract: Contract<TParams, TQuery, TBody, TResponse, TAuth>,
): Contract<TParams, TQuery, TBody, TResponse, TAuth> => contract;
