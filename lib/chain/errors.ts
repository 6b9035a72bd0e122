import { SendTransactionError, SolanaJSONRPCError } from '@solana/web3.js';

/** Why a chain call failed. */
export type ChainErrorCode =
  /** Transport failure, timeout, HTTP 429 or 5xx, or an unhealthy node: try again. */
  | 'RPC_UNAVAILABLE'
  /** The node rejected the request. */
  | 'RPC_ERROR'
  /** Preflight simulation failed: nothing was submitted. */
  | 'SIMULATION_FAILED'
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

/** Marker the adapter's fetch puts in transport failures, which web3.js rewraps into plain Errors. */
export const TRANSIENT_MARK = '[rpc-transient]';

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

  constructor(
    readonly code: ChainErrorCode,
    message: string,
    options: { logs?: string[]; signature?: string; cause?: unknown; transient?: boolean } = {},
  ) {
    super(message, { cause: options.cause });
    this.transient = options.transient ?? TRANSIENT_CODES.has(code);
    this.name = this.transient ? 'ChainTransientError' : 'ChainError';
    this.logs = options.logs ?? [];
    this.signature = options.signature;
  }
}

// JSON-RPC codes a healthy retry can clear: node behind/unhealthy, block or slot not available yet, internal.
const TRANSIENT_RPC_CODES = new Set([-32603, -32004, -32005, -32007, -32014, -32016]);
const TRANSIENT_TEXT =
  /\[rpc-transient\]|fetch failed|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EAI_AGAIN|socket hang up|timed? ?out|unhealthy|is behind|\b(429|50[0-4]) /i;
const EXPIRED_TEXT = /Blockhash not found|BlockhashNotFound|block height exceeded/i;

/** Classify any error thrown by web3.js or the RPC into a ChainError. */
export const toChainError = (
  error: unknown,
  context: { signature?: string; action?: string } = {},
): ChainError => {
  if (error instanceof ChainError) return error;
  const prefix = context.action ? `${context.action}: ` : '';
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof SendTransactionError) {
    const logs = error.logs ?? [];
    const first = message.split('\n').find((line) => line.startsWith('Message:')) ?? message.split('\n')[0];
    const text = `${prefix}${(first ?? message).replace(/^Message:\s*/, '').trim()}`;
    if (EXPIRED_TEXT.test(message))
      return new ChainError('BLOCKHASH_EXPIRED', text, { logs, cause: error, signature: context.signature });
    if (TRANSIENT_TEXT.test(message) && logs.length === 0)
      return new ChainError('RPC_UNAVAILABLE', text, { cause: error, signature: context.signature });
    return new ChainError('SIMULATION_FAILED', text, { logs, cause: error, signature: context.signature });
  }
  if (error instanceof SolanaJSONRPCError) {
    const code = typeof error.code === 'number' ? error.code : 0;
    return new ChainError(
      TRANSIENT_RPC_CODES.has(code) ? 'RPC_UNAVAILABLE' : 'RPC_ERROR',
      `${prefix}${message}`,
      {
        cause: error,
        signature: context.signature,
      },
    );
  }
  if (TRANSIENT_TEXT.test(message))
    return new ChainError('RPC_UNAVAILABLE', `${prefix}${message}`, {
      cause: error,
      signature: context.signature,
    });
  return new ChainError('RPC_ERROR', `${prefix}${message}`, { cause: error, signature: context.signature });
};

/** Whether an error (of any kind) is a chain error worth retrying. */
export const isTransientChainError = (error: unknown): boolean =>
  error instanceof ChainError && error.transient;
