import * as z from 'zod/mini';
import { defineContract } from '../core/contract.js';
import { dataEnvelope, described, withMeta } from '../core/schemas.js';

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
    'together with `x-auth-provider: hmac`; it is valid for 5 minutes and, for non-GET requests, once (without ' +
    '`bodySha256`, once per body: give `bodySha256` so that the signature covers the body). ' +
    'Prefer signing locally: this endpoint exists for quick experiments and never stores or logs the secret.',
  auth: [],
  body: z.object({
    secretKey: described(z.string().check(z.minLength(1), z.maxLength(256)), 'Your secret key'),
    method: described(
      z.pipe(
        z.pipe(
          z.string(),
          z.transform((m) => m.toUpperCase()),
        ),
        z.enum(HTTP_METHODS),
      ),
      'HTTP method of the request to sign (case-insensitive)',
    ),
    path: described(
      z
        .string()
        .check(
          z.minLength(1),
          z.maxLength(2048),
          z.regex(/^\/[^?#\s]*$/, 'must start with "/" and contain no query string, fragment or whitespace'),
        ),
      'Path of the request to sign, e.g. /games/me',
    ),
    apiKey: described(z.uuid(), 'Your API key'),
    timestamp: described(
      z.optional(z.int().check(z.positive())),
      'Unix milliseconds to sign; defaults to now',
    ),
    bodySha256: described(
      z.optional(z.string().check(z.regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters'))),
      'Optional body binding: hex sha256 of the exact request body',
    ),
  }),
  response: dataEnvelope(
    z.object({
      signature: described(z.string(), 'The Authorization header value'),
      timestamp: described(z.int(), 'The signed timestamp (Unix ms)'),
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

const AUTH = ['bearer', 'hmac'] as const;

const profileSchema = withMeta(
  z.object({
    arcId: described(z.uuid(), 'Your Arc ID (internal user ID)'),
    subject: described(z.nullable(z.string()), 'Identity-provider subject, did:<idp>:<id>'),
    apiKey: described(z.nullable(z.uuid()), 'Your API key, null until the first call with an identity token'),
    identifiers: described(z.array(z.string()), 'Identifiers linked to you (did, wallets, email, X handle)'),
    walletAddress: described(
      z.nullable(z.string()),
      'Your embedded Solana wallet, created and held by the identity provider (fund this address to launch ' +
        'or buy); null when the provider has none for you',
    ),
    walletDelegated: described(
      z.boolean(),
      'Whether you delegated signing to the app at the identity provider: launching a coin, buying a ' +
        'multiplier and claiming need it (403 WALLET_DELEGATION_REQUIRED otherwise)',
    ),
    createdAt: z.string(),
    secretKey: described(
      z.optional(z.string()),
      'Your secret key. Present only in the response that created your API key: store it now.',
    ),
  }),
  { id: 'UserProfile' },
);

export const getMeContract = defineContract({
  operationId: 'getMe',
  method: 'GET',
  path: '/user/me',
  tags: ['User'],
  summary: 'Current user',
  description:
    'Your profile. The first call with an identity-provider bearer token creates your user (if needed) and ' +
    'your API key, and returns the secret key once; later calls never show it again (use POST ' +
    '/user/reset-secret to get a new one). Accepts an identity-provider bearer token or an HMAC signature.',
  auth: AUTH,
  response: dataEnvelope(profileSchema),
  errors: ['UNAUTHORIZED', 'INVALID_SIGNATURE', 'TIMESTAMP_OUT_OF_RANGE'],
});

export const getMyStatsContract = defineContract({
  operationId: 'getMyStats',
  method: 'GET',
  path: '/user/me/stats',
  tags: ['User'],
  summary: 'User statistics',
  description:
    'Counters about your activity, kept current as it happens: games registered, points saved through the ' +
    'developer endpoints, game coins launched. Every counter is present (0 when nothing happened yet).',
  auth: AUTH,
  response: dataEnvelope(
    withMeta(
      z.object({
        gamesRegistered: z.int(),
        pointsSaved: z.int(),
        gameCoinsLaunched: z.int(),
      }),
      { id: 'UserStats' },
    ),
  ),
  errors: ['UNAUTHORIZED', 'INVALID_SIGNATURE', 'TIMESTAMP_OUT_OF_RANGE'],
});

export const resetSecretContract = defineContract({
  operationId: 'resetSecret',
  method: 'POST',
  path: '/user/reset-secret',
  tags: ['User'],
  summary: 'Reset the API secret key',
  description:
    'Replaces your secret key and returns the new one, once. The old secret stops working immediately. ' +
    'Accepts an identity-provider bearer token or an HMAC signature made with the current secret.',
  auth: AUTH,
  response: dataEnvelope(z.object({ apiKey: z.uuid(), secretKey: z.string() })),
  errors: ['UNAUTHORIZED', 'INVALID_SIGNATURE', 'TIMESTAMP_OUT_OF_RANGE', 'NOT_FOUND'],
});
