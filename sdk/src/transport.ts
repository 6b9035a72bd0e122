// The fetch that every SDK request goes through: authentication (HMAC signed per attempt, or a bearer token),
// idempotency keys where the operation takes them, and bounded retries (429 after Retry-After; network errors
// and 502/503/504 only when a retry cannot apply the request twice). Error answers become ArcadiaError.
import { ArcadiaError, errorOf, networkError } from './errors.js';
import { EMPTY_BODY_SHA256, sha256Hex, signedPath, signRequest } from './hmac.js';

export type Fetch = (request: Request) => Promise<Response>;

export interface TransportOptions {
  /** The API's base URL, e.g. `http://localhost:3000`. Signed paths are relative to it. */
  baseUrl: string;
  /** Sign every request that has no `authorization` of its own with this API key and secret. */
  hmac?: { apiKey: string; secretKey: string };
  /** Or send this bearer token (an identity-provider token, or a play session token). */
  bearerToken?: string | (() => string | Promise<string>);
  /**
   * Sign HMAC requests in the strict form (default true): the body's sha256 (sent as `x-content-sha256`, also for
   * an empty body) and the canonical query are signed, which every key accepts and keys with strict signing
   * require. `false` signs the basic form (method, path, timestamp) only.
   */
  bindBody?: boolean;
  /** Retries after the first attempt (default 2). */
  maxRetries?: number;
  /** A 429 asking to wait longer than this is not retried but thrown (default 10 s). */
  maxRetryDelayMs?: number;
  /** The underlying fetch (default globalThis.fetch). */
  fetch?: Fetch;
}

const RETRYABLE_STATUS = new Set([502, 503, 504]);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const newKey = () => crypto.randomUUID();

/** The path relative to the base URL, as the URL carries it (signed decoded: `signedPath`). */
export const relativePath = (url: URL, baseUrl: string): string => {
  const basePath = new URL(baseUrl).pathname.replace(/\/+$/, '');
  return basePath && url.pathname.startsWith(`${basePath}/`)
    ? url.pathname.slice(basePath.length)
    : url.pathname;
};

interface Prepared {
  url: URL;
  body: string | ArrayBuffer | undefined;
  /** True when sending the request twice cannot apply it twice. */
  idempotent: boolean;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Give the operations that take an idempotency key one (when the caller did not), before the first attempt, so
 * every retry carries the same key and the server applies the request once.
 */
const addIdempotencyKey = (method: string, path: string, url: URL, json: unknown): boolean => {
  if (method === 'GET' && path === '/play/session-token') {
    if (!url.searchParams.has('idempotencyKey')) url.searchParams.set('idempotencyKey', newKey());
    return true;
  }
  if (method !== 'POST' || !isObject(json)) return false;
  if (path === '/games' || path === '/multiplier/purchase') {
    json.idempotencyKey ??= newKey();
    return true;
  }
  if (path === '/play/dev/batch-save-points' && Array.isArray(json.entries)) {
    const batch = newKey();
    json.entries.forEach((entry: unknown, i) => {
      if (isObject(entry)) entry.idempotencyKey ??= `${batch}.${i}`;
    });
    return true;
  }
  return false;
};

const prepare = async (request: Request, baseUrl: string): Promise<Prepared> => {
  const url = new URL(request.url);
  const method = request.method.toUpperCase();
  const path = relativePath(url, baseUrl);
  const isJson = (request.headers.get('content-type') ?? '').includes('application/json');
  let body: string | ArrayBuffer | undefined;
  if (request.body !== null) body = isJson ? await request.text() : await request.arrayBuffer();
  let json: unknown;
  if (typeof body === 'string' && body) json = JSON.parse(body);
  const keyed = addIdempotencyKey(method, path, url, json);
  if (keyed && json !== undefined) body = JSON.stringify(json);
  return { url, body, idempotent: keyed || method === 'GET' || method === 'HEAD' };
};

const authHeaders = async (
  options: TransportOptions,
  method: string,
  prepared: Prepared,
): Promise<Record<string, string>> => {
  if (options.hmac) {
    const path = signedPath(relativePath(prepared.url, options.baseUrl));
    const signed = { ...options.hmac, method, path };
    if (options.bindBody === false) return signRequest({ ...signed, timestamp: Date.now() });
    const bodySha256 = prepared.body === undefined ? EMPTY_BODY_SHA256 : await sha256Hex(prepared.body);
    return signRequest({ ...signed, timestamp: Date.now(), bodySha256, query: prepared.url.search });
  }
  const token = typeof options.bearerToken === 'function' ? await options.bearerToken() : options.bearerToken;
  return token ? { authorization: `Bearer ${token}` } : {};
};

/** Exponential backoff with jitter for network errors and 5xx: ~200 ms, ~400 ms, ... */
const backoff = (attempt: number) => 200 * 2 ** attempt * (0.5 + Math.random() / 2);

type Outcome = { response: Response } | { retryInMs: number } | { error: ArcadiaError };

/** One attempt: the answer, a wait before the next attempt, or the error to throw. */
const attempt = async (
  options: TransportOptions,
  send: Fetch,
  request: Request,
  prepared: Prepared,
  retriesLeft: boolean,
  n: number,
): Promise<Outcome> => {
  const method = request.method.toUpperCase();
  const headers = new Headers(request.headers);
  // Signed anew per attempt: a non-GET signature is accepted once.
  if (!headers.has('authorization'))
    for (const [k, v] of Object.entries(await authHeaders(options, method, prepared))) headers.set(k, v);
  let response: Response;
  try {
    response = await send(
      new Request(prepared.url, {
        method,
        headers,
        ...(prepared.body === undefined ? {} : { body: prepared.body }),
      }),
    );
  } catch (cause) {
    if (cause instanceof ArcadiaError) return { error: cause };
    return retriesLeft && prepared.idempotent ? { retryInMs: backoff(n) } : { error: networkError(cause) };
  }
  if (response.status < 400) return { response };
  const error = await errorOf(response);
  if (!retriesLeft) return { error };
  // A 429 was refused before any work: always safe to send again once the window has passed.
  const waitMs = (error.retryAfter ?? 1) * 1000;
  if (response.status === 429 && waitMs <= (options.maxRetryDelayMs ?? 10_000)) return { retryInMs: waitMs };
  if (prepared.idempotent && RETRYABLE_STATUS.has(response.status)) return { retryInMs: backoff(n) };
  return { error };
};

/** A fetch that authenticates, keys, retries, and throws ArcadiaError for every error answer. */
export const createTransport = (options: TransportOptions): Fetch => {
  const send: Fetch = options.fetch ?? ((request) => fetch(request));
  const maxRetries = options.maxRetries ?? 2;
  return async (request) => {
    const prepared = await prepare(request, options.baseUrl);
    for (let n = 0; ; n++) {
      const outcome = await attempt(options, send, request, prepared, n < maxRetries, n);
      if ('response' in outcome) return outcome.response;
      if ('error' in outcome) throw outcome.error;
      await sleep(outcome.retryInMs);
    }
  };
};
