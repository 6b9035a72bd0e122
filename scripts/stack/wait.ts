// Polling with a deadline: every readiness wait of the stack goes through here.
import { setTimeout as sleep } from 'node:timers/promises';

export interface PollOptions {
  timeoutMs: number;
  intervalMs?: number;
  /** Checked before every attempt; a returned string aborts the wait with that reason (e.g. "process exited"). */
  abortReason?: () => string | undefined;
}

/** Calls `attempt` until it resolves to a value other than `undefined`, or throws once the deadline passes. */
export async function pollUntil<T>(
  what: string,
  attempt: () => Promise<T | undefined>,
  { timeoutMs, intervalMs = 100, abortReason }: PollOptions,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError = 'no attempt made';
  while (Date.now() < deadline) {
    const reason = abortReason?.();
    if (reason) throw new Error(`${what}: ${reason}`);
    try {
      const value = await attempt();
      if (value !== undefined) return value;
      lastError = 'not ready';
    } catch (error) {
      lastError = error instanceof Error ? error.message : String(error);
    }
    await sleep(Math.min(intervalMs, Math.max(0, deadline - Date.now())));
  }
  throw new Error(`${what}: not ready after ${timeoutMs} ms (last: ${lastError})`);
}

/** Resolves with the promise's value, or rejects once `timeoutMs` has passed. */
export async function withTimeout<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
