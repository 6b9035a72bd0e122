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
  return { status: 500, code: 'INTERNAL_ERROR', message: 'Internal server error', details: [], headers: {} };
};

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
