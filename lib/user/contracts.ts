import * as z from 'zod/mini';
import { defineContract } from '../core/contract.js';
import { dataEnvelope, described, withMeta } from '../core/schemas.js';

const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

/** The HMAC scheme as API users read it: the basic form, the body-bound form and the strict form. */
export const SIGNING_RULES =
  'The signature is lowercase hex HMAC-SHA256, keyed with the secret key, of a string of lines joined by "\\n":\n\n' +
  '- **Basic form**: `lower(method)`, `lower(path)`, `timestamp` (Unix milliseconds; path relative to the base ' +
  'URL, without the query string, percent-decoded: every run of `%XX` read as UTF-8, so a path ending ' +
  '`/periods/2026-12-02T00%3A44%3A00Z/board` is signed ending `/periods/2026-12-02T00:44:00Z/board`, the path ' +
  'API Gateway hands the API). Accepted for keys that are not strict. It covers neither the body nor the ' +
  'query: for non-GET requests it is accepted once per body.\n' +
  '- **Body-bound form**: the same three lines plus `bodySha256`, sent as `x-content-sha256: <bodySha256>` (lowercase ' +
  'hex sha256 of the exact body bytes); the server checks the body against it. Accepted for keys that are not ' +
  'strict.\n' +
  '- **Strict form**: the three lines, `bodySha256` (always: the sha256 of the empty string, ' +
  '`e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855`, for a request without a body; ' +
  '`x-content-sha256` is always sent), and `canonicalQuery`. Accepted for every key; the only form a key with ' +
  '`strictSigning` accepts (set with `PATCH /user/me` and your identity-provider token; `GET /user/me` shows it). ' +
  'A request of such a key signed in another form is 401 `STRICT_SIGNING_REQUIRED`; one whose body or query ' +
  'differs from what was signed is 401 `INVALID_SIGNATURE`.\n\n' +
  '`canonicalQuery`, as AWS Signature V4 canonicalizes a query: read the query string as sent as ' +
  '`application/x-www-form-urlencoded` (a leading `?` dropped, empty segments skipped, `+` is a space, `%XX` are ' +
  'UTF-8 bytes, `a` alone is `a=`); percent-encode every name and value per RFC 3986 (keep `A-Z a-z 0-9 - . _ ~`, ' +
  'every other UTF-8 byte as `%XX` with uppercase hex); sort the pairs by encoded name, then by encoded value ' +
  '(byte order); join them as `name=value` with `&`; `""` without a query. Example: `?sort=desc&limit=10&q=caf%c3%a9+bar&q=a` → ' +
  '`limit=10&q=a&q=caf%C3%A9%20bar&sort=desc`.\n\n' +
  'Send the header value as `Authorization` with `x-auth-provider: hmac`. A signature is valid for 5 minutes ' +
  'and, for non-GET requests, once.';

export const createHmacSignatureContract = defineContract({
  operationId: 'createHmacSignature',
  method: 'POST',
  path: '/user/hmac-signature',
  tags: ['User'],
  summary: 'Generate an HMAC Authorization header value',
  description:
    `Helper that signs a request for you. ${SIGNING_RULES}\n\nGive \`bodySha256\` to bind the body, and ` +
    '`query` (with `bodySha256`) for the strict form; `stringToSign` shows the exact string signed. Prefer ' +
    'signing locally: this endpoint exists for quick experiments and never stores or logs the secret.',
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
      'Path of the request to sign, e.g. /games/me, as sent (percent-encoded or not): it is signed decoded',
    ),
    apiKey: described(z.uuid(), 'Your API key'),
    timestamp: described(
      z.optional(z.int().check(z.positive())),
      'Unix milliseconds to sign; defaults to now',
    ),
    bodySha256: described(
      z.optional(z.string().check(z.regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters'))),
      'Body binding: hex sha256 of the exact request body (required with `query`)',
    ),
    query: described(
      z.optional(
        z.string().check(z.maxLength(4096), z.regex(/^[^#\s]*$/, 'must contain no fragment or whitespace')),
      ),
      'Strict form: the query string exactly as the request sends it (e.g. `limit=10&sort=desc`; `""` for none)',
    ),
  }),
  response: dataEnvelope(
    z.object({
      signature: described(z.string(), 'The Authorization header value'),
      timestamp: described(z.int(), 'The signed timestamp (Unix ms)'),
      stringToSign: described(z.string(), 'The exact string that was signed (lines joined by "\\n")'),
    }),
  ),
  errors: ['VALIDATION_ERROR'],
  example: {
    body: {
      secretKey: 'sk_test_secret',
      method: 'GET',
      path: '/games/me',
      apiKey: '0b6f1a52-4c1e-4c8f-9a37-2f0d6c9e8b11',
      bodySha256: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      query: 'limit=10&sort=desc',
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
    strictSigning: described(
      z.boolean(),
      'Whether your API key accepts only strictly signed requests (body hash and canonical query; see POST ' +
        '/user/hmac-signature). Set with PATCH /user/me',
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

export const updateMeContract = defineContract({
  operationId: 'updateMe',
  method: 'PATCH',
  path: '/user/me',
  tags: ['User'],
  summary: 'Change my settings',
  description:
    '`strictSigning: true` makes your API key accept only strictly signed requests: every request must send ' +
    '`x-content-sha256` and sign the body hash and the canonical query (see `POST /user/hmac-signature`), so a ' +
    'signature seen in transit or in a log cannot carry another body or query. The basic and the body-bound ' +
    'forms are then 401 `STRICT_SIGNING_REQUIRED`. `false` accepts them again. Applies from the next request; ' +
    'resetting the secret keeps it. Identity-provider bearer token only: an HMAC signature is 401, so a leaked ' +
    'secret cannot turn it off. 404 `NOT_FOUND` before your API key exists (call `GET /user/me` first). Answers ' +
    'your profile.',
  auth: ['bearer'],
  body: z.object({
    strictSigning: described(z.boolean(), 'Accept only strictly signed requests for your API key'),
  }),
  response: dataEnvelope(profileSchema),
  errors: ['NOT_FOUND'],
  rateLimit: { limit: 10, windowSeconds: 60, key: 'user' },
  example: { body: { strictSigning: true } },
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
