// Enqueue after commit (docs/webhooks.md, "Outbox"): once a write that holds outbox events has completed, the
// writer sends their ids to the WebhookQueue in one message, and the delivery worker relays them at once, instead
// of leaving them to the relay schedule's next run (a minute in AWS). Best effort: a send that fails or times out
// is logged and the schedule relays the events later; the relay's claim (lib/webhooks/relay.ts) makes the two
// paths relay an event once.
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { afterEachCall } from '../adapters/dynamodb.js';
import { queueUrl, sqs, sqsOneTry } from '../adapters/sqs.js';
import { settings } from '../core/config.js';
import { logger } from '../core/logger.js';

/** The most a change waits for the send: it holds the change's answer, and the schedule is the fallback. */
const SEND_TIMEOUT_MS = 2_000;

// One try within the deadline (sqsOneTry): the send holds the change's answer, and the schedule is the fallback.
const relayClient = () => sqsOneTry(SEND_TIMEOUT_MS);

/**
 * The WebhookQueue's URL: WEBHOOK_QUEUE_URL (`Ref: WebhookQueue`), else resolved once from WEBHOOK_QUEUE_NAME with
 * the caller's client (tests, scripts). The delivery side (lib/webhooks/queue.ts) sends to it too.
 */
export const webhookQueueUrl = (client: SQSClient = sqs()): Promise<string> => {
  const { WEBHOOK_QUEUE_URL, WEBHOOK_QUEUE_NAME } = settings();
  return queueUrl(WEBHOOK_QUEUE_URL, WEBHOOK_QUEUE_NAME, client);
};

/** The queue message that asks the worker to relay events (beside the delivery messages). */
export interface RelayMessage {
  relay: string[];
}

type Written = Record<string, unknown> | undefined;

/** The outbox events a completed call's input holds (pending items put into the webhooks table). */
export const pendingEventIds = (input: Record<string, unknown>): string[] => {
  // A transaction's items, or a single call's input (only a put has an `Item`).
  const puts: Written[] = Array.isArray(input.TransactItems)
    ? (input.TransactItems as Array<{ Put?: Record<string, unknown> }>).map((item) => item.Put)
    : [input];
  const pending = puts.filter((put) => typeof (put?.Item as Written)?.outboxPending === 'string');
  if (pending.length === 0) return [];
  const table = settings().WEBHOOKS_TABLE;
  return pending.flatMap((put) => {
    const eventId = (put?.Item as Written)?.eventId;
    return put?.TableName === table && typeof eventId === 'string' ? [eventId] : [];
  });
};

const relayAfterCommit = async (_operation: string, input: Record<string, unknown>): Promise<void> => {
  const relay = pendingEventIds(input);
  if (relay.length === 0) return;
  try {
    const message: RelayMessage = { relay };
    const client = relayClient();
    await client.send(
      new SendMessageCommand({
        QueueUrl: await webhookQueueUrl(client),
        MessageBody: JSON.stringify(message),
      }),
    );
  } catch (error) {
    logger.warn('immediate webhook relay not sent; the relay schedule will send it', {
      events: relay,
      message: error instanceof Error ? error.message : String(error),
    });
  }
};

/** Arm the enqueue after commit in this process (idempotent): called by whatever builds an outbox item. */
export const relayOutboxAfterCommit = (): void => afterEachCall(relayAfterCommit);
