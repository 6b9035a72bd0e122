// How a failed launch is explained to the user: the state machine's Catch hands the failing task's error (name
// and cause) to the fail task, which turns it into one sentence for the job's `error`. Only messages of errors
// known to be written for people are shown; anything else becomes a generic sentence (no internals leak).
import type { Stage } from './model.js';

/** A launch step that cannot succeed by retrying (job closed, keys missing, balance gone). */
export class LaunchError extends Error {
  override readonly name = 'LaunchError';
}

/** What Step Functions' Catch puts under `ResultPath` (`$.error`). */
export interface TaskFailure {
  Error: string;
  Cause?: string | undefined;
}

const STAGE_LABEL: Record<Stage, string> = {
  queued: 'starting the launch',
  reserve: 'reserving the coin address',
  mint: 'minting the coin',
  buy: 'making the initial buy',
  complete: 'completing the launch',
};

/** Errors whose messages are written for the user (domain and chain errors). */
const READABLE = new Set([
  'LaunchError',
  'AppError',
  'ChainError',
  'CoinLaunchError',
  'CurveError',
  'WalletSignerError',
]);
const TRANSIENT = new Set(['ChainTransientError', 'WalletSignerTransientError']);
const MAX_LENGTH = 500;

/** The message inside a Cause: Lambda failures carry JSON `{errorType, errorMessage, ...}`, others plain text. */
const messageOf = (cause: string | undefined): string => {
  if (!cause) return '';
  try {
    const parsed = JSON.parse(cause) as { errorMessage?: unknown };
    if (typeof parsed.errorMessage === 'string') return parsed.errorMessage;
  } catch {
    // Not JSON: the cause is the message itself.
  }
  return cause;
};

const clip = (text: string) => (text.length > MAX_LENGTH ? `${text.slice(0, MAX_LENGTH - 1)}…` : text);

/** One readable sentence for a failed stage. */
export const describeFailure = (stage: Stage, failure: TaskFailure): string => {
  const where = `Launch failed while ${STAGE_LABEL[stage]}`;
  const message = messageOf(failure.Cause).trim();
  if (/insufficient (lamports|funds)|0x1\b/i.test(message) && failure.Error === 'ChainError')
    return clip(`${where}: your embedded wallet does not hold enough SOL for this transaction (${message})`);
  if (READABLE.has(failure.Error)) return clip(`${where}: ${message || failure.Error}`);
  if (TRANSIENT.has(failure.Error))
    return clip(`${where}: the blockchain network stayed unavailable after several retries (${message})`);
  if (failure.Error === 'Sandbox.Timedout' || failure.Error === 'States.Timeout')
    return `${where}: the step timed out`;
  if (failure.Error.startsWith('Lambda.')) return `${where}: the launch service was unavailable`;
  return `${where}: an internal error occurred`;
};
