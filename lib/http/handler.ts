import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import httpCors from '@middy/http-cors';
import httpEventNormalizer from '@middy/http-event-normalizer';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import httpSecurityHeaders from '@middy/http-security-headers';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import * as z from 'zod/mini';
import type { AuthContext, Authenticator, RateLimiter, RawRequest } from '../core/auth.js';
import { coldStartLoads } from '../core/cold-start.js';
import type {
  AuthScheme,
  AuthSchemesOf,
  BodyOf,
  Contract,
  ParamsOf,
  QueryOf,
  RateLimitSpec,
  ResponseOf,
} from '../core/contract.js';
import { withDeadline } from '../core/deadline.js';
import { AppError, errors } from '../core/errors.js';
import { bearerKind } from '../core/game-tokens.js';
import { logger } from '../core/logger.js';
import { metrics } from '../core/metrics.js';
import { zodDetails } from '../core/validation.js';
import { errorMapper, requestIdOf } from './error-mapper.js';
import { HttpResponse } from './response.js';

/** Side effects a handler factory needs; handlers pass only what their contract uses. */
export interface HttpDeps {
  authenticators?: Partial<Record<AuthContext['scheme'], Authenticator>>;
  rateLimiter?: RateLimiter;
  /** Extra body parser for routes that accept multipart/form-data. */
  multipart?: middy.MiddlewareObj<HttpEvent, HttpResult>;
  /** The budget every request spends besides its route's own (per IP, or per user once authenticated). */
  defaultBudget?: (authenticated: boolean) => RateLimitSpec & { name: string };
  /** The budgets a request that fails authentication spends instead, with their keys (see spendFailedAuth). */
  failedAuthBudgets?: (request: RawRequest) => Array<{ spec: RateLimitSpec & { name: string }; key: string }>;
}

type AuthFor<C> = AuthSchemesOf<C> extends readonly [] ? undefined : AuthContext;

/** The validated, typed request a use case receives. */
export interface RequestOf<C> {
  params: ParamsOf<C>;
  query: QueryOf<C>;
  body: BodyOf<C>;
  auth: AuthFor<C>;
  requestId: string;
  sourceIp: string;
  headers: Record<string, string | undefined>;
  rawBody: Buffer;
}

export type HttpEvent = APIGatewayProxyEventV2 & {
  rawBodyBuffer?: Buffer;
  headerOverrides?: Record<string, string>;
};
export type HttpResult = APIGatewayProxyStructuredResultV2;
/** What API Gateway invokes. */
export type LambdaHttpHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<HttpResult>;

const DEFAULT_MAX_BODY = 1024 * 1024;

const parsePart = <T extends z.core.$ZodType | undefined>(schema: T, value: unknown, what: string) => {
  if (!schema) return undefined;
  const result = z.safeParse(schema, value);
  if (!result.success) throw errors.validation(`Invalid ${what}`, zodDetails(result.error));
  return result.data;
};

const contentTypeOf = (headers: Record<string, string | undefined>) =>
  (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

/**
 * A form-encoded body's fields (the OAuth token endpoint's), by the platform's URLSearchParams. A field sent twice
 * becomes a list, which a contract of strings refuses (RFC 6749 §3.2: parameters must not repeat).
 */
const formFields = (raw: Buffer): Record<string, string | string[]> => {
  const fields: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(raw.toString('utf8'))) {
    const seen = fields[name];
    fields[name] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  }
  return fields;
};

/** The body as its contract reads it: parsed JSON, form fields, or the multipart parser's result. */
const bodyOf = (event: HttpEvent, raw: RawRequest): unknown => {
  if (event.body === undefined || event.body === '') return undefined;
  if (contentTypeOf(raw.headers) === 'application/x-www-form-urlencoded') return formFields(raw.rawBody);
  return event.body;
};

/** Captures the raw body (for signatures and multipart) and enforces the size limit before any parsing. */
const rawBody = (maxBytes: number): middy.MiddlewareObj<HttpEvent, HttpResult> => ({
  before: (request) => {
    const { body, isBase64Encoded } = request.event;
    const buffer = body ? Buffer.from(body, isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
    if (buffer.length > maxBytes) {
      throw new AppError('PAYLOAD_TOO_LARGE', `Request body exceeds ${maxBytes} bytes`);
    }
    request.event.rawBodyBuffer = buffer;
  },
});

/**
 * Headers a use case set explicitly (HttpResponse headers) win over the security defaults: the reference page
 * replaces the strict default Content-Security-Policy with one that allows its own hashed inline scripts.
 */
const handlerHeadersWin = (): middy.MiddlewareObj<HttpEvent, HttpResult> => ({
  after: (request) => {
    const overrides = request.event.headerOverrides;
    if (overrides && request.response)
      request.response.headers = { ...request.response.headers, ...overrides };
  },
});

const toRawRequest = (event: HttpEvent, context: Context): RawRequest => ({
  method: event.requestContext.http.method,
  path: event.rawPath,
  headers: event.headers,
  rawBody: event.rawBodyBuffer ?? Buffer.alloc(0),
  sourceIp: event.requestContext.http.sourceIp,
  requestId: requestIdOf(event, context),
  query: event.queryStringParameters ?? {},
  rawQuery: event.rawQueryString ?? '',
});

/** The schemes a route admits (the contract's `auth`). */
const acceptedSchemes = (contract: Contract): readonly AuthScheme[] => contract.auth;

const bearerTokenIn = (authorization: string) => /^Bearer +(\S+) *$/i.exec(authorization)?.[1];

const insufficientScope = (message: string) => new AppError('INSUFFICIENT_SCOPE', message);

/**
 * The schemes whose credentials the request carries, in the contract's order. A bearer token Arcadia gave a game
 * (a session token, a grant's access or refresh token) is only ever tried as what it is: on a route that doesn't
 * admit it the answer is 403 INSUFFICIENT_SCOPE, never an attempt as the player's identity token.
 */
const presentedSchemes = (contract: Contract, raw: RawRequest): AuthScheme[] => {
  const authorization = raw.headers.authorization ?? '';
  const hmac =
    /^HMAC-SHA256 /i.test(authorization) || (raw.headers['x-auth-provider'] ?? '').toLowerCase() === 'hmac';
  const token = bearerTokenIn(authorization);
  const kind = token && !hmac ? bearerKind(token) : 'other';
  if (kind === 'refresh')
    throw insufficientScope('A refresh token is good at POST /oauth/token only: send its access token');
  const accepted = acceptedSchemes(contract);
  if (kind === 'session' || kind === 'grant') {
    if (accepted.includes(kind)) return [kind];
    throw insufficientScope(
      `A ${kind === 'session' ? 'play session token' : "grant's access token"} can't call ` +
        `${contract.method} ${contract.path}: it needs the player's or developer's own credentials`,
    );
  }
  const bearer = /^Bearer /i.test(authorization);
  return accepted.filter((scheme) => (scheme === 'hmac' ? hmac : scheme === 'bearer' && bearer));
};

/** A game-scoped token may call a route only with the scope the route names (docs/connect.md). */
const authorizeScope = (contract: Contract, auth: AuthContext | undefined) => {
  if (!auth?.scopes) return;
  if (!contract.scope || !auth.scopes.includes(contract.scope))
    throw insufficientScope(
      `This token's scopes (${auth.scopes.join(' ') || 'none'}) don't include ${contract.scope ?? 'this route'}`,
    );
};

/** The game a request names (path, query or body `gameId`), for tokens that speak for one game only. */
const requestedGame = (request: { params: unknown; query: unknown; body: unknown }): unknown => {
  for (const part of [request.params, request.query, request.body])
    if (part && typeof part === 'object' && 'gameId' in part) return (part as { gameId: unknown }).gameId;
  return undefined;
};

/** A token bound to a game (session, grant, a game's own JWT) speaks for that game only: one check, one status. */
const authorizeGame = (
  auth: AuthContext | undefined,
  request: { params: unknown; query: unknown; body: unknown },
) => {
  const named = requestedGame(request);
  if (auth?.gameId && named !== undefined && named !== auth.gameId)
    throw insufficientScope('This token speaks for another game');
};

/** How each scheme's credentials are sent, for the 401 that asks for them. */
const SCHEME_CREDENTIALS: Record<AuthScheme, string> = {
  hmac: 'an HMAC signature (Authorization: HMAC-SHA256 apiKey=…, signature=…, timestamp=…)',
  bearer: 'an identity-provider token (Authorization: Bearer <token>)',
  session: 'a play session token from GET /play/session-token (Authorization: Bearer <sessionToken>)',
  grant: "a grant's access token from POST /oauth/token (Authorization: Bearer <accessToken>)",
};

/** What the request's Authorization header carries, in words (never its value). */
const sentCredentials = (raw: RawRequest): string => {
  const authorization = (raw.headers.authorization ?? '').trim();
  if (authorization === '') return 'no Authorization header';
  if (/^HMAC-SHA256 /i.test(authorization)) return 'an HMAC signature';
  if (/^Bearer /i.test(authorization)) return 'a bearer token';
  const scheme = /^[\w-]{1,20}/.exec(authorization)?.[0];
  return scheme ? `an Authorization header of scheme "${scheme}"` : 'an Authorization header it cannot read';
};

/** A 401 that says which credentials the endpoint takes and what the request sent instead. */
const explainUnauthorized = (contract: Contract, raw: RawRequest, error: unknown): unknown => {
  if (!(error instanceof AppError) || error.code !== 'UNAUTHORIZED') return error;
  const accepted = acceptedSchemes(contract)
    .map((scheme) => SCHEME_CREDENTIALS[scheme])
    .join(', or ');
  return new AppError(
    'UNAUTHORIZED',
    `${error.message}: this endpoint accepts ${accepted}; the request sent ${sentCredentials(raw)}`,
    error.details,
    error.headers,
  );
};

/**
 * Authenticate with the scheme the request's credentials belong to (HMAC or a bearer token); when several
 * accepted schemes use bearer tokens, the first that verifies wins. No credentials: 401 UNAUTHORIZED, saying what
 * the endpoint accepts and what was sent.
 */
const authenticate = async (contract: Contract, deps: HttpDeps, raw: RawRequest) => {
  if (contract.auth.length === 0) return undefined;
  let firstError: unknown;
  for (const scheme of presentedSchemes(contract, raw)) {
    const authenticator = deps.authenticators?.[scheme];
    if (!authenticator) continue;
    try {
      return await authenticator(raw);
    } catch (error) {
      // Remember the first rejection: it names the scheme the caller most likely meant.
      firstError ??= error;
    }
  }
  throw explainUnauthorized(contract, raw, firstError ?? errors.unauthorized('Missing credentials'));
};

/**
 * A failed authentication (401) spends the failed-authentication budgets, so that 401 floods and signature or
 * API-key guessing are rate limited too: past them the answer is 429. Only failures spend, so the success path
 * makes no extra DynamoDB call, and whoever knows an API key cannot lock its owner out with bad signatures (a
 * correct guess of a 256-bit secret's signature is not a practical risk; the volume of attempts is).
 */
const spendFailedAuth = async (deps: HttpDeps, raw: RawRequest, error: unknown): Promise<never> => {
  const { rateLimiter, failedAuthBudgets } = deps;
  if (rateLimiter && failedAuthBudgets && error instanceof AppError && error.status === 401) {
    await Promise.all(failedAuthBudgets(raw).map(({ spec, key }) => rateLimiter(spec, key)));
  }
  throw error;
};

const rateLimitHeaders = (r: { limit: number; remaining: number; resetSeconds: number }) => ({
  'ratelimit-limit': String(r.limit),
  'ratelimit-remaining': String(r.remaining),
  'ratelimit-reset': String(r.resetSeconds),
});

const budgetKey = (spec: RateLimitSpec, raw: RawRequest, auth?: AuthContext): string => {
  switch (spec.key) {
    case 'ip':
      return `ip:${raw.sourceIp}`;
    case 'apiKey':
      return auth?.apiKey ? `key:${auth.apiKey}` : `user:${auth?.userId ?? raw.sourceIp}`;
    case 'session':
      return `session:${auth?.sessionId ?? auth?.userId ?? raw.sourceIp}`;
    default:
      return auth ? `user:${auth.userId}` : `ip:${raw.sourceIp}`;
  }
};

/** Spend the default budget and the route's own; the RateLimit-* headers describe the tighter one. */
const spendBudgets = async (contract: Contract, deps: HttpDeps, raw: RawRequest, auth?: AuthContext) => {
  if (!deps.rateLimiter) return {};
  const budgets = [
    ...(deps.defaultBudget ? [deps.defaultBudget(auth !== undefined)] : []),
    ...(contract.rateLimit ? [{ ...contract.rateLimit, name: contract.operationId }] : []),
  ];
  let headers = {};
  for (const spec of budgets) {
    headers = rateLimitHeaders(await deps.rateLimiter(spec, budgetKey(spec, raw, auth)));
  }
  return headers;
};

const checkMediaType = (contract: Contract, raw: RawRequest) => {
  if (!contract.body || raw.rawBody.length === 0) return;
  const allowed = contract.bodyMediaTypes ?? ['application/json'];
  const type = contentTypeOf(raw.headers);
  if (!allowed.some((t) => t === type)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Content-Type must be one of: ${allowed.join(', ')}`);
  }
};

const serialize = (
  contract: Contract,
  response: HttpResponse,
  headers: Record<string, string>,
): HttpResult => {
  if (contract.responseMediaType) {
    return {
      statusCode: response.status,
      headers: { 'content-type': contract.responseMediaType, ...headers, ...response.headers },
      body: String(response.body),
    };
  }
  const checked = response.status < 300 ? z.safeParse(contract.response, response.body) : undefined;
  if (checked && !checked.success) {
    logger.error('response violates its contract', {
      operationId: contract.operationId,
      issues: zodDetails(checked.error),
    });
    throw new Error(`Response of ${contract.operationId} violates its contract`);
  }
  return {
    statusCode: response.status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers, ...response.headers },
    body: JSON.stringify(checked ? checked.data : response.body),
  };
};

/**
 * Wrap a use case into a Lambda handler: the one middy stack of the service, in middy's documented order,
 * with the contract validating input and output. Handlers call this and nothing else.
 */
export const httpHandler = <C extends Contract>(
  contract: C,
  useCase: (request: RequestOf<C>) => Promise<ResponseOf<C> | HttpResponse<ResponseOf<C>>>,
  deps: HttpDeps = {},
): LambdaHttpHandler => {
  if (!contract.scope && contract.auth.some((scheme) => scheme === 'session' || scheme === 'grant'))
    throw new Error(`${contract.operationId}: a route that admits game-scoped tokens names their scope`);
  for (const scheme of acceptedSchemes(contract)) {
    if (!deps.authenticators?.[scheme]) {
      throw new Error(`${contract.operationId}: no authenticator wired for scheme ${scheme}`);
    }
  }
  // Every outbound call inside takes its timeout and its retries' waits from the time Lambda has left.
  const core = (event: HttpEvent, context: Context): Promise<HttpResult> =>
    withDeadline(context, () => answer(event, context));
  const answer = async (event: HttpEvent, context: Context): Promise<HttpResult> => {
    // What the bundled modules read once per container (the secrets key) is there before anything uses it.
    await coldStartLoads();
    const raw = toRawRequest(event, context);
    checkMediaType(contract, raw);
    const auth = await authenticate(contract, deps, raw).catch((error: unknown) =>
      spendFailedAuth(deps, raw, error),
    );
    authorizeScope(contract, auth);
    const limitHeaders = await spendBudgets(contract, deps, raw, auth);
    const request = {
      params: parsePart(contract.params, event.pathParameters ?? {}, 'path parameters'),
      query: parsePart(contract.query, event.queryStringParameters ?? {}, 'query parameters'),
      body: parsePart(contract.body, bodyOf(event, raw), 'body'),
      auth,
      requestId: raw.requestId,
      sourceIp: raw.sourceIp,
      headers: event.headers,
      rawBody: raw.rawBody,
    } as RequestOf<C>;
    authorizeGame(auth, request);
    const result = await useCase(request);
    if (result instanceof HttpResponse) event.headerOverrides = result.headers;
    const response =
      result instanceof HttpResponse ? result : new HttpResponse(contract.successStatus ?? 200, result);
    return serialize(contract, response, limitHeaders);
  };

  const stack = middy<HttpEvent, HttpResult>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { captureColdStartMetric: true }))
    .use(httpEventNormalizer())
    .use(httpHeaderNormalizer())
    .use(rawBody(contract.maxBodyBytes ?? DEFAULT_MAX_BODY))
    .use(httpJsonBodyParser({ disableContentTypeError: true }));
  if (deps.multipart) stack.use(deps.multipart);
  stack
    .use(handlerHeadersWin())
    .use(httpSecurityHeaders())
    .use(
      httpCors({
        origin: '*',
        exposeHeaders: 'x-request-id, ratelimit-limit, ratelimit-remaining, ratelimit-reset, retry-after',
      }),
    )
    .use(errorMapper())
    .handler(core);
  // The normalizer middlewares widen the event type; API Gateway still hands over a payload 2.0 event.
  return stack as unknown as LambdaHttpHandler;
};
