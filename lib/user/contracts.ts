import * as z from 'zod';
import { defineContract } from '../http/contract.js';
import { dataEnvelope } from '../http/schemas.js';

const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

export const createHmacSignatureContract = defineContract({
  operationId: 'createHmacSignature',
  method: 'POST',
  path: '/user/hmac-signature',
  tags: ['User'],
  summary: 'Generate an HMAC Authorization header value',
  description:
    'Helper that signs a request for you. The signature is lowercase hex HMAC-SHA256, keyed with the secret ' +
    'key, of `lower(method) + "\\n" + lower(path) + "\\n" + timestamp` where timestamp is Unix milliseconds and ' +
    'path is the request path without query string. When `bodySha256` is given, `"\\n" + bodySha256` is appended ' +
    'and the request must then carry `x-content-sha256: <bodySha256>`. Send the returned value as `Authorization` ' +
    'together with `x-auth-provider: hmac`; it is valid for 5 minutes and, for non-GET requests, once. ' +
    'Prefer signing locally: this endpoint exists for quick experiments and never stores or logs the secret.',
  auth: [],
  body: z.object({
    secretKey: z.string().min(1).max(256).describe('Your secret key'),
    method: z
      .string()
      .transform((m) => m.toUpperCase())
      .pipe(z.enum(HTTP_METHODS))
      .describe('HTTP method of the request to sign (case-insensitive)'),
    path: z
      .string()
      .min(1)
      .max(2048)
      .regex(/^\/[^?#\s]*$/, 'must start with "/" and contain no query string, fragment or whitespace')
      .describe('Path of the request to sign, e.g. /games/me'),
    apiKey: z.uuid().describe('Your API key'),
    timestamp: z.number().int().positive().optional().describe('Unix milliseconds to sign; defaults to now'),
    bodySha256: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters')
      .optional()
      .describe('Optional body binding: hex sha256 of the exact request body'),
  }),
  response: dataEnvelope(
    z.object({
      signature: z.string().describe('The Authorization header value'),
      timestamp: z.number().int().describe('The signed timestamp (Unix ms)'),
    }),
  ),
  errors: ['VALIDATION_ERROR'],
  example: {
    body: {
      secretKey: 'sk_test_secret',
      method: 'POST',
      path: '/games',
      apiKey: '0b6f1a52-4c1e-4c8f-9a37-2f0d6c9e8b11',
    },
  },
});
