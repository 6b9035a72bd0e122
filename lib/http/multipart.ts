import type middy from '@middy/core';
import httpMultipartBodyParser from '@middy/http-multipart-body-parser';
import type { HttpEvent, HttpResult } from './handler.js';

/**
 * multipart/form-data parsing for routes that accept uploads. Files up to API Gateway's 10 MB payload are
 * buffered so the image rules answer IMAGE_TOO_LARGE (400) rather than the parser a bare 413.
 */
export const multipartParser = (): middy.MiddlewareObj<HttpEvent, HttpResult> =>
  // The parser's own typings describe the event after parsing; it runs on the raw payload 2.0 event.
  httpMultipartBodyParser({
    disableContentTypeError: true,
    busboy: { limits: { fileSize: 10 * 1024 * 1024, files: 4, fields: 50, fieldSize: 8 * 1024 * 1024 } },
  }) as unknown as middy.MiddlewareObj<HttpEvent, HttpResult>;
