import type { HeaderObject, ResponseObject } from 'openapi3-ts/oas31';
import type { Contract } from '../../core/contract.js';
import { ERROR_STATUS, type ErrorCode } from '../../core/errors.js';

/** Response headers, declared once in components.headers and referenced by every response. */
export const HEADERS: Record<string, HeaderObject> = {
  RequestId: {
    description: 'Unique id of this request, also in `error.requestId` and on the request’s log line.',
    required: true,
    schema: { type: 'string' },
    example: '0c6d1f8e-3f5a-4e55-9a4c-2b1e7d0f9a31',
  },
  RateLimitLimit: {
    description: 'Requests allowed in the current window of the tightest budget this request spent.',
    schema: { type: 'integer' },
    example: 60,
  },
  RateLimitRemaining: {
    description: 'Requests left in that window.',
    schema: { type: 'integer' },
    example: 59,
  },
  RateLimitReset: {
    description: 'Seconds until that window resets.',
    schema: { type: 'integer' },
    example: 42,
  },
  RetryAfter: {
    description: 'Seconds to wait before sending the request again.',
    required: true,
    schema: { type: 'integer' },
    example: 42,
  },
};

const ref = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

/** Every response carries `x-request-id`. */
const REQUEST_ID = { 'x-request-id': ref('RequestId') };
/** A success has spent the request's rate budgets (the default one and the route's): it describes the tighter. */
const RATE_LIMIT = {
  'RateLimit-Limit': ref('RateLimitLimit'),
  'RateLimit-Remaining': ref('RateLimitRemaining'),
  'RateLimit-Reset': ref('RateLimitReset'),
};
const SUCCESS_HEADERS = { ...REQUEST_ID, ...RATE_LIMIT };
const RATE_LIMITED_HEADERS = { ...REQUEST_ID, ...RATE_LIMIT, 'Retry-After': ref('RetryAfter') };

/** Codes any operation can answer, whatever it documents itself. */
const ALWAYS: ErrorCode[] = ['RATE_LIMITED', 'INTERNAL_ERROR'];
/** HMAC requests are also refused for a bad signature, a stale timestamp, or an unbound one of a strict key. */
const AUTH_ERRORS = (contract: Contract): ErrorCode[] => [
  'UNAUTHORIZED',
  // A game-scoped token (session or grant) on a route or game its scopes don't cover.
  'INSUFFICIENT_SCOPE',
  ...(contract.auth.includes('hmac')
    ? (['INVALID_SIGNATURE', 'TIMESTAMP_OUT_OF_RANGE', 'STRICT_SIGNING_REQUIRED'] as const)
    : []),
];
/** Any request with a body is checked for its size and media type before anything else. */
const BODY_ERRORS: ErrorCode[] = ['PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'VALIDATION_ERROR'];

/** A typical message for each code, for the examples (domains phrase their own). */
const MESSAGES: Record<ErrorCode, string> = {
  VALIDATION_ERROR: 'Invalid body',
  INVALID_IDENTIFIER: 'Not a wallet address, email or X handle: nobody@',
  INVALID_DISPLAY_NAME:
    'Invalid display name: may hold letters, digits, spaces and - _ . \' ! ? ( ) & only ("★" U+2605)',
  MISSING_IMAGE: 'An image is required',
  INVALID_IMAGE_FORMAT: 'The image is not a valid data URI',
  UNSUPPORTED_IMAGE_FORMAT: 'Images must be jpeg, png, gif or webp',
  IMAGE_TOO_LARGE: 'The image exceeds 5 MB',
  INVALID_REWARDS_SPLIT: 'The rewards split must add up to 100',
  ACTIVE_GAME_COIN: 'The game already has an active coin',
  CLAIM_MIGRATION_PENDING: 'A claim of this wallet predates the claim records and is being verified',
  AIRDROP_TOKEN_FROZEN: 'The airdrop token cannot change while the game has an active coin',
  INSUFFICIENT_BALANCE: 'The wallet holds too few lamports',
  NO_EMBEDDED_WALLET: 'You have no embedded wallet: create one with the identity provider, then retry',
  WALLET_DELEGATION_REQUIRED: 'Enable delegated signing for your embedded wallet with the identity provider',
  PURCHASE_ALLOWANCE_REQUIRED:
    'A purchase with a session token needs a daily allowance you granted to this game (PUT /rewards/allowances/{gameId})',
  PURCHASE_ALLOWANCE_EXCEEDED:
    'This purchase costs 4000000 lamports; 1500000 lamports of your allowance remain today',
  DISPLAY_NAME_LOCKED: 'The studio set your display name in this game and locked it',
  UNAUTHORIZED: 'Missing or invalid authentication',
  INVALID_SIGNATURE: 'Invalid signature',
  TIMESTAMP_OUT_OF_RANGE: 'Timestamp is more than 5 minutes away from the server time',
  STRICT_SIGNING_REQUIRED:
    'This API key requires strict signing: send x-content-sha256 and sign the body hash and the canonical query',
  FORBIDDEN: 'You are not allowed to perform this action',
  INSUFFICIENT_SCOPE:
    "A game-scoped token can't do this: POST /games needs the player's or developer's own credentials",
  GRACE_PERIOD_RESTRICTED: 'Not allowed during the grace period',
  NOT_FOUND: 'Game not found',
  CONFLICT: 'Conflicts with the current state',
  FLUSH_OUT_OF_ORDER: 'Flush sequence out of order',
  CHAIN_BROKEN: 'The hash chain does not continue the last accepted flush',
  SESSION_CLOSED: 'The session is closed',
  TOURNAMENT_STARTED: 'The tournament has started: its definition can no longer change',
  TOURNAMENT_FULL: 'The period has its maximum of entrants',
  TOURNAMENT_NOT_RUNNING: 'The tournament is cancelled or has no period left to join',
  SESSION_LIMIT_REACHED: 'Too many open sessions',
  PAYLOAD_TOO_LARGE: 'Request body exceeds 1048576 bytes',
  UNSUPPORTED_MEDIA_TYPE: 'Content-Type must be one of: application/json',
  RATE_LIMITED: 'Too many requests',
  INTERNAL_ERROR: 'Internal server error',
  PRICE_UNAVAILABLE:
    'No SOL price is available right now (every price feed failed); nothing was charged, retry shortly',
  UPSTREAM_UNAVAILABLE:
    'A service this request depends on (identity provider, chain RPC, price feed) timed out or is unreachable; retry after the Retry-After seconds',
};

/** One example error body per code, declared once in components.examples. */
export const errorExamples = () =>
  Object.fromEntries((Object.keys(ERROR_STATUS) as ErrorCode[]).map((code) => [code, errorExample(code)]));

const errorExample = (code: ErrorCode) => ({
  summary: code,
  value: {
    error: {
      code,
      message: MESSAGES[code],
      details: code === 'VALIDATION_ERROR' ? [{ path: 'gameId', message: 'Invalid UUID' }] : [],
      requestId: '0c6d1f8e-3f5a-4e55-9a4c-2b1e7d0f9a31',
    },
  },
});

/** The success responses: the contract's status, and the others it answers with the same body. */
export const successResponses = (
  contract: Contract,
  content: ResponseObject['content'],
): Record<string, ResponseObject> => {
  const main = { status: contract.successStatus ?? 200, description: 'Success' };
  return Object.fromEntries(
    [main, ...(contract.alsoAnswers ?? [])].map(({ status, description }) => [
      String(status),
      { description, headers: SUCCESS_HEADERS, content },
    ]),
  );
};

/** One response per error status the operation can answer, with an example per code. */
export const errorResponses = (contract: Contract): Record<string, ResponseObject> => {
  const codes = new Set<ErrorCode>([...contract.errors, ...ALWAYS]);
  if (contract.auth.length) for (const code of AUTH_ERRORS(contract)) codes.add(code);
  if (contract.body) for (const code of BODY_ERRORS) codes.add(code);
  if (contract.query || contract.params) codes.add('VALIDATION_ERROR');
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...codes].sort()) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, list]) => [
        String(status),
        {
          description: `Error: ${list.join(', ')}`,
          headers: status === 429 ? RATE_LIMITED_HEADERS : REQUEST_ID,
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/Error' },
              examples: Object.fromEntries(
                list.map((code) => [code, { $ref: `#/components/examples/${code}` }]),
              ),
            },
          },
        } satisfies ResponseObject,
      ]),
  );
};
