/** Error codes of the public API, stable because clients branch on them, and the HTTP status each maps to. */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  INVALID_IDENTIFIER: 400,
  INVALID_DISPLAY_NAME: 400,
  MISSING_IMAGE: 400,
  INVALID_IMAGE_FORMAT: 400,
  UNSUPPORTED_IMAGE_FORMAT: 400,
  IMAGE_TOO_LARGE: 400,
  INVALID_REWARDS_SPLIT: 400,
  ACTIVE_GAME_COIN: 400,
  INSUFFICIENT_BALANCE: 400,
  NO_EMBEDDED_WALLET: 400,
  UNAUTHORIZED: 401,
  INVALID_SIGNATURE: 401,
  TIMESTAMP_OUT_OF_RANGE: 401,
  STRICT_SIGNING_REQUIRED: 401,
  FORBIDDEN: 403,
  INSUFFICIENT_SCOPE: 403,
  GRACE_PERIOD_RESTRICTED: 403,
  WALLET_DELEGATION_REQUIRED: 403,
  PURCHASE_ALLOWANCE_REQUIRED: 403,
  PURCHASE_ALLOWANCE_EXCEEDED: 403,
  DISPLAY_NAME_LOCKED: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  FLUSH_OUT_OF_ORDER: 409,
  CHAIN_BROKEN: 409,
  SESSION_CLOSED: 409,
  CLAIM_MIGRATION_PENDING: 409,
  AIRDROP_TOKEN_FROZEN: 409,
  TOURNAMENT_STARTED: 409,
  TOURNAMENT_FULL: 409,
  TOURNAMENT_NOT_RUNNING: 409,
  SESSION_LIMIT_REACHED: 403,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  PRICE_UNAVAILABLE: 503,
  UPSTREAM_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  path: string;
  message: string;
}

/** A domain error with a public code; its message is safe to show to the caller. */
export class AppError extends Error {
  override readonly name = 'AppError';
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

/** Shorthand constructors for the errors most domains throw. */
export const errors = {
  validation: (message: string, details: ErrorDetail[] = []) =>
    new AppError('VALIDATION_ERROR', message, details),
  notFound: (what: string) => new AppError('NOT_FOUND', `${what} not found`),
  forbidden: (message = 'You are not allowed to perform this action') => new AppError('FORBIDDEN', message),
  unauthorized: (message = 'Missing or invalid authentication') => new AppError('UNAUTHORIZED', message),
};
