import {
  isSolanaError,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR,
  SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED,
  SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND,
  type SolanaError,
} from '@solana/kit';
import type { AppError } from '../core/errors.js';
import { isGiveUp, retryAfterMs } from './rpc-budget.js';

/** Why a chain call failed. */
export type ChainErrorCode =
  /** Transport failure, timeout, HTTP 429 or 5xx, or an unhealthy node: try again. */
  | 'RPC_UNAVAILABLE'
  /** The node rejected the request. */
  | 'RPC_ERROR'
  /** Preflight simulation failed: nothing was submitted. */
  | 'SIMULATION_FAILED'
  /** The node has already processed this very transaction (same signature). */
  | 'ALREADY_PROCESSED'
  /** The transaction landed and failed on chain (fee charged, no effects). */
  | 'TRANSACTION_FAILED'
  /** The transaction's blockhash expired before it landed: it never will. */
  | 'BLOCKHASH_EXPIRED'
  /** Not confirmed before the caller's deadline: it may still land. */
  | 'CONFIRM_TIMEOUT'
  /** A required signature is missing or invalid. */
  | 'MISSING_SIGNATURE'
  /** A local-only operation (airdrop) against a non-local RPC. */
  | 'NOT_LOCAL';

const TRANSIENT_CODES = new Set<ChainErrorCode>(['RPC_UNAVAILABLE', 'BLOCKHASH_EXPIRED', 'CONFIRM_TIMEOUT']);

/**
 * A failed chain operation, carrying the program logs when there are any. Its `name` is `ChainTransientError`
 * when retrying can help (429/5xx/timeouts/expired blockhash) and `ChainError` otherwise, so Step Functions
 * can `Retry` on the error name alone.
 */
export class ChainError extends Error {
  override readonly name: 'ChainError' | 'ChainTransientError';
  readonly transient: boolean;
  readonly logs: string[];
  readonly signature: string | undefined;
  /** The provider's Retry-After (ms) when it limited the call. */
  readonly retryAfterMs: number | undefined;

  constructor(
    readonly code: ChainErrorCode,
    message: string,
    options: {
      logs?: string[];
      signature?: string;
      cause?: unknown;
      transient?: boolean;
      retryAfterMs?: number;
    } = {},
  ) {
    super(message, { cause: options.cause });
    this.transient = options.transient ?? TRANSIENT_CODES.has(code);
    this.name = this.transient ? 'ChainTransientError' : 'ChainError';
    this.logs = options.logs ?? [];
    this.signature = options.signature;
    this.retryAfterMs = options.retryAfterMs;
  }
}

// JSON-RPC codes a healthy retry can clear: node behind/unhealthy, block or slot not available yet, internal.
const TRANSIENT_RPC_CODES = new Set([-32603, -32004, -32005, -32007, -32014, -32016]);
// Transport failures below the RPC layer (fetch, sockets, DNS, our per-request deadline).
const TRANSIENT_TEXT =
  /fetch failed|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EAI_AGAIN|socket hang up|timed? ?out|aborted|unhealthy|is behind/i;

/** The JSON-RPC error code a kit error carries (its own code for server errors), if any. */
const rpcCode = (error: SolanaError): number | undefined => {
  const code = (error.context as { __code?: unknown }).__code;
  return typeof code === 'number' ? code : undefined;
};

/** The node's own words, when kit kept them. */
const serverMessage = (error: SolanaError): string => {
  const text = (error.context as { __serverMessage?: unknown }).__serverMessage;
  return typeof text === 'string' ? text : error.message;
};

const preflightFailure = (error: SolanaError, prefix: string, signature: string | undefined) => {
  const context = error.context as { logs?: unknown };
  const logs = Array.isArray(context.logs)
    ? context.logs.filter((l): l is string => typeof l === 'string')
    : [];
  const cause = error.cause;
  const node = (error.context as { __serverMessage?: unknown }).__serverMessage;
  const text = `${prefix}${typeof node === 'string' ? node : cause instanceof Error ? cause.message : error.message}`;
  if (isSolanaError(cause, SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND))
    return new ChainError('BLOCKHASH_EXPIRED', text, { logs, cause: error, signature });
  if (isSolanaError(cause, SOLANA_ERROR__TRANSACTION_ERROR__ALREADY_PROCESSED))
    return new ChainError('ALREADY_PROCESSED', text, { logs, cause: error, signature });
  return new ChainError('SIMULATION_FAILED', text, { logs, cause: error, signature });
};

/** A JSON-RPC error object or HTTP failure answered to a call made without kit's client. */
export const fromRpcAnswer = (
  action: string,
  answer: { status: number; retryAfterMs?: number } | { error: { code: number; message: string } },
): ChainError => {
  if ('status' in answer) {
    const transient = answer.status === 429 || answer.status >= 500;
    return new ChainError(
      transient ? 'RPC_UNAVAILABLE' : 'RPC_ERROR',
      `${action}: RPC answered HTTP ${answer.status}`,
      answer.retryAfterMs === undefined ? {} : { retryAfterMs: answer.retryAfterMs },
    );
  }
  const { code, message } = answer.error;
  return new ChainError(
    TRANSIENT_RPC_CODES.has(code) ? 'RPC_UNAVAILABLE' : 'RPC_ERROR',
    `${action}: ${message}`,
  );
};

/**
 * Classify any error thrown by kit's RPC client, fetch or a signer into a ChainError. The deadline's give-up (503
 * UPSTREAM_UNAVAILABLE with the provider's wait, rpc-budget.ts) is no chain failure: it is rethrown as it is, so
 * the caller's answer keeps its Retry-After.
 */
export const toChainError = (
  error: unknown,
  context: { signature?: string; action?: string } = {},
): ChainError => {
  if (isGiveUp(error)) throw error as AppError;
  if (error instanceof ChainError) return error;
  const prefix = context.action ? `${context.action}: ` : '';
  const { signature } = context;
  if (isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE))
    return preflightFailure(error, prefix, signature);
  if (isSolanaError(error, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR)) {
    const { code, message } = fromRpcAnswer(context.action ?? 'RPC', { status: error.context.statusCode });
    const wait = retryAfterMs(error.context.headers?.get('retry-after'));
    return new ChainError(code, message, {
      cause: error,
      signature,
      ...(wait === undefined ? {} : { retryAfterMs: wait }),
    });
  }
  if (isSolanaError(error)) {
    const code = rpcCode(error);
    const transient = code !== undefined && TRANSIENT_RPC_CODES.has(code);
    return new ChainError(transient ? 'RPC_UNAVAILABLE' : 'RPC_ERROR', `${prefix}${serverMessage(error)}`, {
      cause: error,
      signature,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  const name = error instanceof Error ? error.name : '';
  if (name === 'TimeoutError' || name === 'AbortError' || TRANSIENT_TEXT.test(message))
    return new ChainError('RPC_UNAVAILABLE', `${prefix}RPC request failed: ${message}`, {
      cause: error,
      signature,
    });
  return new ChainError('RPC_ERROR', `${prefix}${message}`, { cause: error, signature });
};

/** Whether an error (of any kind) is a chain error worth retrying. */
export const isTransientChainError = (error: unknown): boolean =>
  error instanceof ChainError && error.transient;
