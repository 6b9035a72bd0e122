// The identity provider's import of users the platform created first (docs/wallets.md, "New players"): a save
// for a never-seen wallet, email or handle creates the Arc user at once and queues its import here, so that a
// provider that is slow, down or rate-limiting never fails or slows a save. The worker (functions/user/
// import-users.ts) imports the queued users in the provider's batches, gives each Arc user the subject of the
// provider user now holding its identifier and mirrors that user's embedded wallet; payouts carry until then.
import * as z from 'zod/mini';
import { type BatchMessage, queueUrl, sendMessageBatches } from '../adapters/sqs.js';
import { settings } from '../core/config.js';
import { AppError } from '../core/errors.js';
import { logger } from '../core/logger.js';
import { processQueueBatch, type QueueRecord } from '../core/queue-batch.js';
import { type IdentityDirectory, IMPORT_BATCH_LIMIT, type ProviderUserRef } from './directory.js';
import { parseIdentifier } from './identifiers.js';
import type { ImportPace } from './import-pace.js';
import { ProviderApiError } from './provider.js';
import { claimSubject, getIdentifierOwners, importStates, rememberWalletAddress } from './repository.js';

/** A user created before its import: its Arc ID and the identifier key it was created for. */
export interface PendingImport {
  arcId: string;
  identifier: string;
}

/**
 * How long after its message was queued an Arc ID that does not exist is taken for one that never will (its
 * creation lost a race, or never ran): until then it may still be being written, and the message is retried.
 */
const CREATION_GRACE_MS = 60_000;

/** One queue message: up to one provider batch of users, and when they were queued. */
export const importMessage = z.object({
  queuedAt: z.optional(z.string()),
  /** Times the message was put back to wait for the provider (see `processImportBatch`). */
  deferrals: z.optional(z.int().check(z.gte(0))),
  users: z
    .array(
      z.object({ arcId: z.string().check(z.minLength(1)), identifier: z.string().check(z.minLength(1)) }),
    )
    .check(z.minLength(1), z.maxLength(IMPORT_BATCH_LIMIT)),
});

/** The ghost (the user just imported) and the person who already holds its provider subject. */
export interface OwnedSubject {
  ghost: string;
  person: string;
}

export interface ImportDeps {
  directory: IdentityDirectory;
  /**
   * The import found that the identifier's person already has another Arc user: merge the new one into it (the
   * merge of scripts/merge-identities.ts). True once nothing is left to move; false to be tried again later.
   */
  merge: (owned: OwnedSubject) => Promise<boolean>;
  /** The creations shared by every worker (import-pace.ts); absent: the provider is called at once. */
  pace?: ImportPace;
  now?: () => Date;
}

/**
 * The longest a worker waits in the function for its reserved creations (the function's timeout is 120 s); a
 * longer wait puts the message back with that delay instead.
 */
const MAX_PACE_WAIT_MS = 30_000;
/** SQS delays a message by 15 minutes at most: a longer wait is waited in several turns. */
const MAX_DELAY_SECONDS = 900;
/**
 * A message put back this many times takes the ordinary way after that (a failure is a receive, then the DLQ):
 * a provider still refusing after hours of waits is an incident for the alarm, not for one more wait.
 */
export const MAX_IMPORT_DEFERRALS = 200;
/** A refusal that said to wait, without saying how long. */
const DEFAULT_WAIT_MS = 30_000;

/** The provider can take these users only later: wait `waitMs` before trying again. */
export class ImportDeferred extends Error {
  override readonly name = 'ImportDeferred';

  constructor(
    readonly waitMs: number,
    /** The provider refused (429): the shared pace holds every worker until then. */
    readonly rateLimited: boolean,
  ) {
    super(`The identity provider can take these users in ${Math.ceil(waitMs / 1000)} s`);
  }
}

/**
 * How long a failed import must wait, when the failure says to wait: the pace's own deferral, or the provider's
 * 429 or unavailability with its Retry-After (seconds); undefined for any other failure.
 */
export const importDeferral = (error: unknown): ImportDeferred | undefined => {
  if (error instanceof ImportDeferred) return error;
  if (error instanceof AppError && (error.code === 'RATE_LIMITED' || error.code === 'UPSTREAM_UNAVAILABLE')) {
    const told = Number(error.headers['Retry-After'] ?? error.headers['retry-after']) * 1000;
    return new ImportDeferred(
      Number.isFinite(told) && told > 0 ? told : DEFAULT_WAIT_MS,
      error.code === 'RATE_LIMITED',
    );
  }
  if (error instanceof ProviderApiError && error.kind === 'rate_limited')
    return new ImportDeferred(DEFAULT_WAIT_MS, true);
  return undefined;
};

/** Seconds a queued import waits before the worker may receive it. */
const IMPORT_DELAY_SECONDS = 2;

/** USER_IMPORT_QUEUE_URL (`Ref: UserImportQueue`), else resolved once from USER_IMPORT_QUEUE_NAME (tests). */
const importQueueUrl = (): Promise<string> => {
  const { USER_IMPORT_QUEUE_URL, USER_IMPORT_QUEUE_NAME } = settings();
  return queueUrl(USER_IMPORT_QUEUE_URL, USER_IMPORT_QUEUE_NAME);
};

/**
 * Queue users for import (USER_IMPORT_QUEUE_URL): one message per provider batch (20 users), 10 messages per
 * request, so 100 new players are one SendMessageBatch. Throws when SQS still refused any after retries.
 */
export const queueImports = async (pending: readonly PendingImport[]): Promise<void> => {
  if (pending.length === 0) return;
  const QueueUrl = await importQueueUrl();
  const queuedAt = new Date().toISOString();
  const messages: BatchMessage[] = [];
  for (let i = 0; i < pending.length; i += IMPORT_BATCH_LIMIT)
    messages.push({
      MessageBody: JSON.stringify({ queuedAt, users: pending.slice(i, i + IMPORT_BATCH_LIMIT) }),
      // Queued before the users are written (lib/user/resolver.ts): a short delay lets the writes land first.
      DelaySeconds: IMPORT_DELAY_SECONDS,
    });
  await sendMessageBatches(QueueUrl, messages, { what: 'import message(s)' });
};

/**
 * Settle one imported user: claim the provider subject for it (and mirror its embedded wallet), or, when
 * another Arc user holds that subject, merge it into that one. True when done.
 */
const settle = async (arcId: string, user: ProviderUserRef, deps: ImportDeps, now: string) => {
  const { subject } = user;
  // An X handle nobody signed in with: no provider user yet; its Arc user stays as it is.
  if (!subject) return true;
  const claimed = await claimSubject(arcId, subject, now);
  const holder = claimed ? arcId : (await getIdentifierOwners([subject])).get(subject);
  if (holder && holder !== arcId) return deps.merge({ ghost: arcId, person: holder });
  if (!holder) {
    // Not claimed and nobody holds the subject: the user got another subject or was merged concurrently.
    const state = (await importStates([arcId])).get(arcId);
    if (!state?.subject && !state?.mergedInto) return false;
    if (state.subject !== subject) return true;
  }
  if (user.walletAddress && user.walletId)
    await rememberWalletAddress(arcId, { address: user.walletAddress, id: user.walletId });
  return true;
};

/**
 * The users left to import: those not imported yet. A user merged earlier whose merge is not done is merged
 * again (failed when it must still wait); one not written yet fails while its message is young (see above).
 */
const triage = async (pending: readonly PendingImport[], deps: ImportDeps, young: boolean) => {
  const states = await importStates(pending.map((p) => p.arcId));
  const failed: string[] = [];
  const todo: PendingImport[] = [];
  for (const p of pending) {
    const state = states.get(p.arcId);
    if (!state) {
      // Maybe still being written (retried), else never (a lost race: the winner is imported).
      if (young) failed.push(p.arcId);
    } else if (state.mergedInto) {
      if (!state.mergedAt && !(await deps.merge({ ghost: p.arcId, person: state.mergedInto })))
        failed.push(p.arcId);
    } else if (!state.subject) todo.push(p);
  }
  return { todo, failed };
};

/**
 * Import these users into the provider (its batch import) and settle each. Users already imported are skipped;
 * a merge begun earlier is finished. Returns the Arc IDs not done (failed at the provider, or a merge that must
 * wait): the caller tries them again.
 */
export const importPending = async (
  pending: readonly PendingImport[],
  deps: ImportDeps,
  queuedAt?: string,
): Promise<string[]> => {
  const at = deps.now?.() ?? new Date();
  const young = queuedAt !== undefined && at.getTime() - Date.parse(queuedAt) < CREATION_GRACE_MS;
  const { todo, failed } = await triage(pending, deps, young);
  if (todo.length === 0) return failed;
  // Each user may be a creation: reserved for the whole batch (X handles, only looked up, are counted too).
  const wait = (await deps.pace?.reserve(todo.length, MAX_PACE_WAIT_MS)) ?? 0;
  if (wait > 0) throw new ImportDeferred(wait, false);
  const results = await deps.directory.importUsers(todo.map((p) => parseIdentifier(p.identifier)));
  for (const [i, p] of todo.entries()) {
    const result = results[i];
    if (result?.ok && (await settle(p.arcId, result.user, deps, at.toISOString()))) continue;
    if (result && !result.ok) logger.warn('user import failed', { arcId: p.arcId, reason: result.error });
    failed.push(p.arcId);
  }
  return failed;
};

/**
 * Put a message back to be received after `waitMs`: a new message (the same users, one more deferral) with that
 * delay; the caller then acknowledges the one it received. A wait is thereby never a receive of the message, so
 * a provider that says "later" never moves it toward the DLQ. Sent twice (the acknowledgement lost), the import
 * runs twice: it is idempotent (users already imported are skipped, a user created twice names its holder).
 */
const deferImport = async (message: z.infer<typeof importMessage>, waitMs: number) => {
  await sendMessageBatches(
    await importQueueUrl(),
    [
      {
        MessageBody: JSON.stringify({ ...message, deferrals: (message.deferrals ?? 0) + 1 }),
        DelaySeconds: Math.min(MAX_DELAY_SECONDS, Math.max(1, Math.ceil(waitMs / 1000))),
      },
    ],
    { what: 'deferred import message' },
  );
};

/**
 * The worker's batch: each message one provider batch. A message the provider can take only later (the shared
 * pace is full, a 429, the provider unavailable, with its Retry-After) is put back with that delay and
 * acknowledged; a message with a user not done otherwise is retried (a receive, then the DLQ).
 */
export const processImportBatch = (
  records: readonly QueueRecord[],
  deps: ImportDeps,
): Promise<{ batchItemFailures: Array<{ itemIdentifier: string }> }> =>
  processQueueBatch(records, importMessage, 'user import', async (message) => {
    let failed: string[];
    try {
      failed = await importPending(message.users, deps, message.queuedAt);
    } catch (error) {
      const deferred = importDeferral(error);
      if (!deferred || (message.deferrals ?? 0) >= MAX_IMPORT_DEFERRALS) throw error;
      if (deferred.rateLimited)
        await deps.pace?.holdUntil((deps.now?.() ?? new Date()).getTime() + deferred.waitMs);
      logger.info('user import deferred', { users: message.users.length, waitMs: deferred.waitMs });
      await deferImport(message, deferred.waitMs);
      return;
    }
    if (failed.length > 0)
      throw new Error(`${failed.length} of ${message.users.length} user(s) not imported yet`);
  });
