// The delivery worker (functions/webhooks/deliver-webhooks.ts): one queue message is one attempt to POST one event
// to one endpoint (or, from a writer that just committed events, a request to relay them now: ./relay.ts). At least once: the event id is the `webhook-id` of every attempt, so a receiver deduplicates on
// it; ordering is not promised. A failed attempt is logged and the next one queued after the retry schedule's wait
// (jittered), up to the schedule's end; the run of failures may disable the endpoint (./repository.ts).
import * as z from 'zod/mini';
import { openSecret } from '../adapters/secrets.js';
import { settings } from '../core/config.js';
import { logger } from '../core/logger.js';
import { errorFields } from '../core/original-stack.js';
import type { QueueRecord } from '../core/queue-batch.js';
import { insightsWrite } from '../insights/index.js';
import { type DeliveryMessage, type EndpointRecord, maxAttempts } from './model.js';
import { MAX_DELAY_SECONDS, type QueuedDelivery } from './queue.js';
import { relayEvent } from './relay.js';
import * as repo from './repository.js';
import { webhookHeaders } from './signing.js';

export interface PostResult {
  status: number;
  body: Buffer;
}

export interface DeliverDeps {
  /** POST `body` to `url` with `headers`, within the deadline, reading at most the response cap. */
  post: (url: string, body: string, headers: Record<string, string>) => Promise<PostResult>;
  queue: (deliveries: readonly QueuedDelivery[]) => Promise<void>;
  now?: () => Date;
  /** In [0, 1): the jitter of retry waits. */
  random?: () => number;
}

export const deliveryMessage = z.object({
  gameId: z.string().check(z.minLength(1)),
  endpointId: z.string().check(z.minLength(1)),
  eventId: z.string().check(z.minLength(1)),
  attempt: z.int().check(z.gte(1), z.lte(9999)),
  notBefore: z.optional(z.string()),
});

/** The wait after failed attempt `attempt`: the schedule's entry ± 20 %, or undefined when none follows. */
export const retryDelaySeconds = (
  schedule: readonly number[],
  attempt: number,
  random: () => number,
): number | undefined => {
  const base = schedule[attempt - 1];
  return base === undefined ? undefined : Math.max(0, Math.round(base * (0.8 + 0.4 * random())));
};

/** The secrets that sign now: the current one, and the previous one during its grace period. */
export const signingSecrets = (endpoint: EndpointRecord, now: Date): string[] => [
  openSecret(endpoint.secret).toString('utf8'),
  ...(endpoint.previousSecret &&
  endpoint.previousSecretExpiresAt &&
  Date.parse(endpoint.previousSecretExpiresAt) > now.getTime()
    ? [openSecret(endpoint.previousSecret).toString('utf8')]
    : []),
];

const describeError = (error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error);
  return message.slice(0, 300);
};

/** Time the POST; a thrown error (timeout, refused address, connection) is a failed attempt with no status. */
const attemptPost = async (
  deps: DeliverDeps,
  endpoint: EndpointRecord,
  body: string,
  headers: Record<string, string>,
) => {
  const started = Date.now();
  try {
    const result = await deps.post(endpoint.url, body, headers);
    const ok = result.status >= 200 && result.status < 300;
    return {
      statusCode: result.status,
      ok,
      latencyMs: Date.now() - started,
      error: ok ? null : `HTTP ${result.status}`,
      responseBody: result.body.subarray(0, 200).toString('utf8') || null,
    };
  } catch (error) {
    return {
      statusCode: null,
      ok: false,
      latencyMs: Date.now() - started,
      error: describeError(error),
      responseBody: null,
    };
  }
};

/** Make the attempt a message asks for; resolves once its outcome (and any retry) is recorded. */
export const deliverOnce = async (message: DeliveryMessage, deps: DeliverDeps): Promise<void> => {
  const now = deps.now?.() ?? new Date();
  const wait = message.notBefore ? Date.parse(message.notBefore) - now.getTime() : 0;
  if (wait > 1000) {
    await deps.queue([{ message, delaySeconds: Math.min(MAX_DELAY_SECONDS, Math.ceil(wait / 1000)) }]);
    return;
  }
  const { gameId, endpointId, eventId, attempt } = message;
  const [endpoint, event] = await Promise.all([repo.getEndpoint(gameId, endpointId), repo.getEvent(eventId)]);
  const at = now.toISOString();
  if (!endpoint || !event) {
    await repo.abandonDelivery(endpointId, eventId, endpoint ? 'event expired' : 'endpoint deleted', at);
    return;
  }
  const { WEBHOOK_TIMEOUT_MS, WEBHOOK_RETRY_SCHEDULE } = settings();
  const claimUntil = new Date(now.getTime() + WEBHOOK_TIMEOUT_MS + 30_000).toISOString();
  if (!(await repo.claimAttempt(endpointId, eventId, attempt, at, claimUntil))) return;
  if (!endpoint.enabled) {
    await repo.abandonDelivery(endpointId, eventId, 'endpoint disabled', at);
    return;
  }
  const headers = webhookHeaders(signingSecrets(endpoint, now), eventId, event.payload, now);
  const outcome = await attemptPost(deps, endpoint, event.payload, headers);
  const delay = outcome.ok
    ? undefined
    : attempt < maxAttempts(WEBHOOK_RETRY_SCHEDULE)
      ? retryDelaySeconds(WEBHOOK_RETRY_SCHEDULE, attempt, deps.random ?? Math.random)
      : undefined;
  const nextRetryAt = delay === undefined ? null : new Date(now.getTime() + delay * 1000).toISOString();
  await repo.finishAttempt(
    {
      endpointId,
      eventId,
      eventType: event.type,
      attempt,
      at,
      ...outcome,
      nextRetryAt,
    },
    {
      status: outcome.ok ? 'delivered' : nextRetryAt ? 'pending' : 'failed',
      nextAttemptAt: nextRetryAt,
      lastError: outcome.error,
      lastStatusCode: outcome.statusCode,
    },
    // A failed attempt counts on the day's figures (lib/insights), with the attempt's record.
    outcome.ok
      ? []
      : [insightsWrite(gameId, at.slice(0, 10), { webhookFailures: 1 })].flatMap((i) => (i ? [i] : [])),
  );
  if (delay !== undefined && nextRetryAt) {
    await deps.queue([
      {
        message: { gameId, endpointId, eventId, attempt: attempt + 1, notBefore: nextRetryAt },
        delaySeconds: Math.min(MAX_DELAY_SECONDS, delay),
      },
    ]);
  }
  await repo.recordEndpointOutcome(gameId, endpointId, outcome.ok, at);
};

/** A writer's message naming events it just committed (lib/outbox/relay-now.ts). */
const relayMessage = z.object({
  relay: z
    .array(z.string().check(z.regex(/^evt_[0-9a-z]{9}[0-9a-f]{16}$/)))
    .check(z.minLength(1), z.maxLength(100)),
});

/** Relay the named events now; undefined, or the message id to hand out again when the relay failed. */
const relayNamed = async (messageId: string, eventIds: string[], deps: DeliverDeps) => {
  try {
    for (const eventId of eventIds)
      await relayEvent(eventId, { queue: deps.queue, ...(deps.now ? { now: deps.now } : {}) });
    return undefined;
  } catch (error) {
    logger.error('webhook relay failed', { eventIds, ...errorFields(error) });
    return messageId;
  }
};

/**
 * A batch of delivery messages (and relay messages), all at once: each POST has its own deadline, so an endpoint that hangs delays no
 * other delivery of the batch. A message whose handling failed (not its endpoint: the table, the queue) is
 * reported for SQS to hand out again.
 */
export const processDeliveryBatch = async (
  records: readonly QueueRecord[],
  deps: DeliverDeps,
): Promise<{ batchItemFailures: Array<{ itemIdentifier: string }> }> => {
  const outcomes = await Promise.all(
    records.map(async (record) => {
      let body: unknown;
      try {
        body = JSON.parse(record.body);
      } catch {
        body = undefined;
      }
      const relay = z.safeParse(relayMessage, body);
      if (relay.success) return relayNamed(record.messageId, relay.data.relay, deps);
      const message = z.safeParse(deliveryMessage, body);
      if (!message.success) {
        logger.error('malformed webhook delivery message', { messageId: record.messageId });
        return record.messageId;
      }
      try {
        await deliverOnce(message.data as DeliveryMessage, deps);
        return undefined;
      } catch (error) {
        logger.error('webhook delivery failed', { ...message.data, ...errorFields(error) });
        return record.messageId;
      }
    }),
  );
  return {
    batchItemFailures: outcomes.flatMap((id) => (id === undefined ? [] : [{ itemIdentifier: id }])),
  };
};
