// The invocation's deadline, for every outbound call (identity provider, chain RPC, price feeds, webhooks): a call
// takes its timeout from the time the function has left, and a retry waits only when the wait and one more call
// still fit. When they don't, the caller is answered at once with 503 UPSTREAM_UNAVAILABLE and the upstream's
// Retry-After, instead of Lambda killing the function at its timeout (a 502 or 504 with no body, no Retry-After).
// The deadline rides in AsyncLocalStorage, set by lib/http/handler.ts and lib/core/observed.ts from Lambda's
// context, so no signature in between changes; outside an invocation (a script, a test calling a module) there is
// no deadline and the callers' own limits apply.
import { AsyncLocalStorage } from 'node:async_hooks';
import { AppError } from './errors.js';

/**
 * Milliseconds kept for answering after the last outbound call gives up: mapping the error, logging, flushing
 * metrics, and API Gateway's own hop.
 */
export const ANSWER_RESERVE_MS = 750;

/** The shortest call worth making: below it a call would time out before any upstream could answer. */
export const MIN_CALL_MS = 250;

const deadlines = new AsyncLocalStorage<number>();

/** What Lambda's context tells of the time left (absent when a handler is called in-process without one). */
interface DeadlineSource {
  getRemainingTimeInMillis?: () => number;
}

/** Runs `fn` under the invocation's deadline: now plus the time Lambda says is left, less the answer reserve. */
export const withDeadline = <T>(context: DeadlineSource | undefined, fn: () => Promise<T>): Promise<T> => {
  const left = context?.getRemainingTimeInMillis?.();
  if (typeof left !== 'number' || !Number.isFinite(left) || left <= 0) return fn();
  return deadlines.run(Date.now() + left - ANSWER_RESERVE_MS, fn);
};

/** Milliseconds left for outbound work in this invocation; Infinity outside one. */
export const remainingMs = (): number => {
  const at = deadlines.getStore();
  return at === undefined ? Number.POSITIVE_INFINITY : at - Date.now();
};

/** 503 UPSTREAM_UNAVAILABLE with the seconds to wait, rounded up (at least 1). */
export const upstreamBusy = (what: string, retryAfterMs: number): AppError => {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new AppError(
    'UPSTREAM_UNAVAILABLE',
    `${what} is busy or limiting this service: retry after ${seconds} s`,
    [],
    { 'Retry-After': String(seconds) },
  );
};

/**
 * The timeout of one outbound call: the caller's own limit, shortened to what the invocation has left. Throws
 * UPSTREAM_UNAVAILABLE (Retry-After `retryAfterMs`) when not even a minimal call fits.
 */
export const callTimeoutMs = (preferredMs: number, what: string, retryAfterMs = 1000): number => {
  const left = remainingMs();
  if (left < MIN_CALL_MS) throw upstreamBusy(what, retryAfterMs);
  return Math.min(preferredMs, left);
};

/**
 * Whether waiting `waitMs` before another attempt still leaves a minimal call inside the deadline. A retry loop
 * asks before it sleeps; when the answer is no it throws `upstreamBusy(what, waitMs)` so the caller learns the
 * upstream's own wait.
 */
export const canWait = (waitMs: number): boolean => remainingMs() - waitMs >= MIN_CALL_MS;

/** Sleeps `waitMs` when it fits the deadline; otherwise throws UPSTREAM_UNAVAILABLE with that wait. */
export const waitOrGiveUp = async (waitMs: number, what: string): Promise<void> => {
  if (!canWait(waitMs)) throw upstreamBusy(what, waitMs);
  await new Promise((resolve) => setTimeout(resolve, waitMs));
};
