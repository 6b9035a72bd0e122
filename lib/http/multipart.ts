import type middy from '@middy/core';
import httpMultipartBodyParser from '@middy/http-multipart-body-parser';
import { AppError } from '../core/errors.js';
import { MAX_BINARY_BODY_BYTES, MAX_TEXT_BODY_BYTES } from '../core/payload.js';
import type { HttpEvent, HttpResult } from './handler.js';

/**
 * Refuse a body that could not have reached the function in AWS (lib/core/payload.ts), whatever its size locally:
 * multipart is base64-encoded into the invocation, JSON is not. The answer names both limits and the way around
 * them, so a client learns it here rather than from API Gateway's bare error in production.
 */
const enforceInvocationLimit = (event: HttpEvent, uploadHint: string): void => {
  const size = event.rawBodyBuffer?.length ?? 0;
  const multipart = /^multipart\//i.test(event.headers['content-type'] ?? '');
  const limit = multipart ? MAX_BINARY_BODY_BYTES : MAX_TEXT_BODY_BYTES;
  if (size <= limit) return;
  const limits = `at most ${MAX_BINARY_BODY_BYTES} bytes as multipart/form-data, ${MAX_TEXT_BODY_BYTES} bytes as JSON`;
  throw new AppError(
    'PAYLOAD_TOO_LARGE',
    `Request body of ${size} bytes exceeds the ${limit}-byte limit for ${multipart ? 'multipart/form-data' : 'JSON'} ` +
      `bodies (${limits}): AWS Lambda accepts a 6 MB request and API Gateway base64-encodes multipart bodies. ` +
      uploadHint,
    [{ path: 'body', message: limits }],
  );
};

/**
 * Body parsing for the routes that take images in the request (createGame, updateGame): the invocation's size
 * limit by media type first, then multipart/form-data into fields and files. Files are buffered whole so that the
 * image rules answer IMAGE_TOO_LARGE (400) rather than the parser a bare 413. `uploadHint` ends the 413's message:
 * where larger content goes instead.
 */
export const multipartParser = (uploadHint: string): middy.MiddlewareObj<HttpEvent, HttpResult> => {
  // The parser's own typings describe the event after parsing; it runs on the raw payload 2.0 event.
  const parser = httpMultipartBodyParser({
    disableContentTypeError: true,
    busboy: {
      limits: {
        fileSize: MAX_BINARY_BODY_BYTES,
        files: 4,
        fields: 50,
        fieldSize: MAX_BINARY_BODY_BYTES,
      },
    },
  }) as unknown as middy.MiddlewareObj<HttpEvent, HttpResult>;
  return {
    before: (request) => {
      enforceInvocationLimit(request.event, uploadHint);
      return parser.before?.(request);
    },
  };
};
