import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { AppError, type ErrorCode, type ErrorDetail } from '../core/errors.js';
import { logger } from '../core/logger.js';
import { errorFields } from '../core/original-stack.js';

/** What serverless offline puts in every event's `requestContext.requestId`: the same string for all requests. */
const OFFLINE_PLACEHOLDER = 'offlineContext_';

/**
 * The request id echoed as `x-request-id` and logged with the request: API Gateway's own, else (no API Gateway
 * id, or serverless offline's constant placeholder) the Lambda invocation's, which is unique per request there too.
 */
export const requestIdOf = (event: APIGatewayProxyEventV2, context: Context): string => {
  const id = event.requestContext?.requestId;
  return id && !id.startsWith(OFFLINE_PLACEHOLDER) ? id : context.awsRequestId;
};

interface PublicError {
  status: number;
  code: ErrorCode;
  message: string;
  details: ErrorDetail[];
  headers: Record<string, string>;
}

interface HttpLikeError {
  statusCode: number;
  expose?: boolean;
  message: string;
}

const isHttpLike = (error: unknown): error is HttpLikeError =>
  typeof error === 'object' && error !== null && typeof (error as HttpLikeError).statusCode === 'number';

/** Seconds a client waits before retrying a request an upstream failed. */
export const UPSTREAM_RETRY_AFTER_SECONDS = 5;

/** Transport failures of an upstream service (undici and Node socket codes): it is down or did not answer. */
const UPSTREAM_CODES = new Set([
  'ETIMEDOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
  // lib/chain: the RPC node timed out, refused, or answered 429/5xx.
  'RPC_UNAVAILABLE',
]);

/**
 * Whether an error (or one it was caused by) is an upstream that timed out or could not be reached: a fetch
 * aborted by its `AbortSignal.timeout` (`TimeoutError`), an SDK client's timeout, or a refused or dropped
 * connection. Such a request may succeed when retried: a 503, never a 500.
 */
export const isUpstreamFailure = (error: unknown): boolean => {
  for (let e = error, depth = 0; typeof e === 'object' && e !== null && depth < 5; depth++) {
    const { name, code, cause } = e as { name?: unknown; code?: unknown; cause?: unknown };
    if (name === 'TimeoutError') return true;
    if (typeof code === 'string' && UPSTREAM_CODES.has(code)) return true;
    e = cause;
  }
  return false;
};

/**
 * The seconds an upstream asked us to wait (an error in the chain carrying `retryAfterMs`, as a rate-limited RPC's
 * does), else UPSTREAM_RETRY_AFTER_SECONDS.
 */
export const upstreamRetryAfter = (error: unknown): number => {
  for (let e = error, depth = 0; typeof e === 'object' && e !== null && depth < 5; depth++) {
    const { retryAfterMs, cause } = e as { retryAfterMs?: unknown; cause?: unknown };
    if (typeof retryAfterMs === 'number' && Number.isFinite(retryAfterMs) && retryAfterMs > 0)
      return Math.max(1, Math.ceil(retryAfterMs / 1000));
    e = cause;
  }
  return UPSTREAM_RETRY_AFTER_SECONDS;
};

const toPublic = (error: unknown): PublicError => {
  if (error instanceof AppError) {
    return {
      status: error.status,
      code: error.code,
      message: error.message,
      details: error.details,
      headers: error.headers,
    };
  }
  // middy's own errors (bad JSON, unsupported media type) carry statusCode and `expose`.
  if (isHttpLike(error) && error.statusCode < 500 && error.expose !== false) {
    const code = codeForHttpStatus(error.statusCode);
    return {
      status: code === 'VALIDATION_ERROR' ? 400 : error.statusCode,
      code,
      message: error.message,
      details: [],
      headers: {},
    };
  }
  if (isUpstreamFailure(error))
    return {
      status: 503,
      code: 'UPSTREAM_UNAVAILABLE',
      message: ERROR_MESSAGE_UPSTREAM,
      details: [],
      headers: { 'Retry-After': String(upstreamRetryAfter(error)) },
    };
  return { status: 500, code: 'INTERNAL_ERROR', message: 'Internal server error', details: [], headers: {} };
};

const ERROR_MESSAGE_UPSTREAM =
  'A service this request depends on timed out or is unreachable: retry after the Retry-After seconds';

/**
 * Last middleware of the stack: stamps `x-request-id` on every response, logs one line per request, and turns
 * any error into the standard error body. Unknown errors are logged and answered with a generic 500.
 */
export const errorMapper = (): middy.MiddlewareObj<
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2
> => {
  const started = new WeakMap<object, number>();
  const finish = (request: middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2>) => {
    const requestId = requestIdOf(request.event, request.context);
    const response = request.response ?? { statusCode: 500 };
    response.headers = { ...response.headers, 'x-request-id': requestId };
    request.response = response;
    logger.info('request', {
      requestId,
      method: request.event.requestContext?.http?.method,
      path: request.event.rawPath,
      status: response.statusCode,
      durationMs: Date.now() - (started.get(request) ?? Date.now()),
    });
  };
  return {
    before: (request) => {
      started.set(request, Date.now());
      // Every line logged while handling the request carries its id (injectLambdaContext resets the keys).
      logger.appendKeys({ requestId: requestIdOf(request.event, request.context) });
    },
    after: finish,
    onError: (request) => {
      const failure = toPublic(request.error);
      if (failure.status >= 500) {
        // The bundles run without --enable-source-maps (cold start): the readable stack is mapped here.
        logger.error('unhandled error', errorFields(request.error));
      }
      const requestId = requestIdOf(request.event, request.context);
      request.response = {
        statusCode: failure.status,
        headers: { 'content-type': 'application/json; charset=utf-8', ...failure.headers },
        body: JSON.stringify({
          error: { code: failure.code, message: failure.message, details: failure.details, requestId },
        }),
      };
      finish(request);
    },
  };
};

/** Map middy/http-errors style errors (statusCode + expose) to public codes. */
export const codeForHttpStatus = (status: number): ErrorCode => {
  switch (status) {
    case 401:
      return 'UNAUTHORIZED';
    case 403:
      return 'FORBIDDEN';
    case 404:
      return 'NOT_FOUND';
    case 413:
      return 'PAYLOAD_TOO_LARGE';
    case 415:
      return 'UNSUPPORTED_MEDIA_TYPE';
    case 429:
      return 'RATE_LIMITED';
    default:
      return status >= 500 ? 'INTERNAL_ERROR' : 'VALIDATION_ERROR';
  }
};
