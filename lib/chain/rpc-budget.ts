// The request budget of an RPC provider plan, and what the chain adapter does when a provider still limits it.
// Plans limit requests per second per method family: `sendTransaction` lowest (1–5 a second on the low plans),
// the account scans of the holder read (getProgramAccounts, V2) next, everything else (statuses, balances, fee
// reads, blockhashes) highest. One budget per family and RPC URL is shared by every call of the container (the
// reader and the writer of one function, settlement's confirmation polls, re-broadcasts and fee reads alike), so
// together they stay under the plan instead of each staying under it alone.
//
// A call that must wait for its family's budget waits only when the wait fits the invocation's deadline
// (lib/core/deadline.ts); an HTTP 429 is retried after the provider's Retry-After (or a backoff), under the same
// rule. When a wait does not fit, the caller is answered at once: 503 UPSTREAM_UNAVAILABLE with that wait.

import { canWait, MIN_CALL_MS, remainingMs, upstreamBusy } from '../core/deadline.js';
import { type AppError, ERROR_STATUS } from '../core/errors.js';

/** Method families a provider plan limits separately. */
export type MethodFamily = 'send' | 'scan' | 'read';

/** Requests per second per family; absent or 0: not limited on this side. */
export type RpcBudget = Partial<Record<MethodFamily, number>>;

/** How an HTTP 429 from the provider is retried. */
export interface RateLimitRetry {
  /** Attempts of one call, the first included. Default 4. */
  attempts?: number;
  /** First backoff when the provider sends no Retry-After (ms); doubles per attempt, with jitter. Default 500. */
  baseMs?: number;
}

/** What the caller learns when the RPC gives up: the upstream's name in the 503's message. */
export const RPC_NAME = 'The Solana RPC';

export const familyOf = (method: string): MethodFamily =>
  method === 'sendTransaction'
    ? 'send'
    : method === 'getProgramAccounts' || method === 'getProgramAccountsV2'
      ? 'scan'
      : 'read';

/**
 * Spacing of one family's requests (generic cell rate: a request is due one interval after the previous one, a
 * burst of `burst` allowed). 10 % is kept below the plan's rate: a request can leave late (a busy event loop) and
 * arrive late while the next leaves on time, and a provider counting any sliding second would then see one too
 * many.
 */
class Spacing {
  private due = 0;
  private readonly interval: number;
  private readonly tolerance: number;

  constructor(perSecond: number, burst: number) {
    this.interval = 1000 / (perSecond * 0.9);
    this.tolerance = (Math.max(1, burst) - 1) * this.interval;
  }

  /** Milliseconds until a request may go, its turn taken. */
  take(now: number): number {
    const at = Math.max(this.due, now);
    const wait = Math.max(0, at - this.tolerance - now);
    this.due = at + this.interval;
    return wait;
  }

  /** Gives back a turn taken by a request that did not go. */
  giveBack(): void {
    this.due -= this.interval;
  }

  /** Milliseconds a request would wait now (nothing taken). */
  waitNow(now: number): number {
    return Math.max(0, Math.max(this.due, now) - this.tolerance - now);
  }

  /** The provider asked for a pause: no request of this family before `until`. */
  pauseUntil(until: number): void {
    if (until > this.due) this.due = until;
  }
}

/** The budget of one RPC URL's calls in this container. */
export interface RpcLimiter {
  /** Waits for the method's turn; throws 503 UPSTREAM_UNAVAILABLE at once when the wait does not fit the deadline. */
  take(method: string): Promise<void>;
  /** Whether a call of this method would go now (an optional call, a re-broadcast, skips its turn otherwise). */
  freeNow(method: string): boolean;
  /** The provider answered 429: the family pauses `waitMs` for every caller. */
  pause(method: string, waitMs: number): void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Families of one RPC URL and budget, shared by every chain adapter over it in the container. */
const shared = new Map<string, Map<MethodFamily, Spacing>>();

/**
 * The limiter of `url` under this budget: every adapter of the same URL and budget (a function's reader and writer,
 * all built from its settings) shares its families. Without a budget the calls are not spaced, only paused after
 * a 429.
 */
export const rpcLimiter = (url: string, budget: RpcBudget = {}): RpcLimiter => {
  const key = `${url} ${budget.send ?? 0} ${budget.scan ?? 0} ${budget.read ?? 0}`;
  let families = shared.get(key);
  if (!families) {
    families = new Map();
    shared.set(key, families);
  }
  const known = families;
  const spacing = (family: MethodFamily): Spacing => {
    let s = known.get(family);
    if (!s) {
      const perSecond = budget[family] ?? 0;
      // Unlimited families still keep a Spacing to honour a provider's pause; 1e6 a second never waits.
      s = new Spacing(perSecond > 0 ? perSecond : 1e6, family === 'send' ? 1 : Math.max(1, perSecond / 2));
      known.set(family, s);
    }
    return s;
  };
  return {
    take: async (method) => {
      const s = spacing(familyOf(method));
      const wait = s.take(Date.now());
      if (wait <= 0) return;
      if (!canWait(wait)) {
        s.giveBack();
        throw rpcBusy(wait);
      }
      await sleep(wait);
    },
    freeNow: (method) => spacing(familyOf(method)).waitNow(Date.now()) <= 0,
    pause: (method, waitMs) => spacing(familyOf(method)).pauseUntil(Date.now() + waitMs),
  };
};

/** Forget every shared budget (tests that reconfigure one URL). */
export const resetRpcLimiters = (): void => shared.clear();

/**
 * 503 UPSTREAM_UNAVAILABLE with the provider's wait, when the invocation has no time for it. Named
 * `ChainTransientError` as well, as the chain's other retryable failures are: Step Functions retries a launch
 * task on that name, and a task out of time now ends this way instead of in a Lambda timeout it also retried.
 */
export const rpcBusy = (waitMs: number): AppError => {
  const error = upstreamBusy(RPC_NAME, waitMs);
  Object.defineProperty(error, 'name', { value: 'ChainTransientError' });
  return error;
};

/** One RPC call's timeout: its own, shortened to what the invocation has left; 503 when not even a short call fits. */
export const rpcTimeoutMs = (preferredMs: number): number => {
  const left = remainingMs();
  if (left < MIN_CALL_MS) throw rpcBusy(1000);
  return Math.min(preferredMs, left);
};

/** Whether an error is the deadline's give-up (an AppError 503 that must reach the caller as it is). */
export const isGiveUp = (error: unknown): error is AppError =>
  typeof error === 'object' &&
  error !== null &&
  (error as { code?: unknown }).code === 'UPSTREAM_UNAVAILABLE' &&
  (error as { status?: unknown }).status === ERROR_STATUS.UPSTREAM_UNAVAILABLE;

/** The provider's Retry-After (seconds or an HTTP date) in ms, if it sent one. */
export const retryAfterMs = (value: string | null | undefined, now = Date.now()): number | undefined => {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
};

/** Backoff before attempt `attempt + 1` (1-based): the provider's wait, else base × 2^(attempt−1) with jitter. */
export const backoffMs = (attempt: number, baseMs: number, providerWaitMs?: number): number =>
  providerWaitMs ?? Math.round(baseMs * 2 ** (attempt - 1) * (0.5 + Math.random() / 2));
