// The delivery queue (WebhookQueue): one message per delivery attempt, its delay the retry's wait (SQS holds a
// message at most 15 minutes; a longer wait is carried as `notBefore` and the message re-queued until then).
import { sendMessageBatches } from '../adapters/sqs.js';
import { webhookQueueUrl } from '../outbox/index.js';
import type { DeliveryMessage } from './model.js';

/** SQS's longest message delay. */
export const MAX_DELAY_SECONDS = 900;

export interface QueuedDelivery {
  message: DeliveryMessage;
  delaySeconds: number;
}

/** Queue delivery attempts, 10 per request; throws when SQS still refused any after retries. */
export const queueDeliveries = async (deliveries: readonly QueuedDelivery[]): Promise<void> => {
  if (deliveries.length === 0) return;
  const QueueUrl = await webhookQueueUrl();
  await sendMessageBatches(
    QueueUrl,
    deliveries.map(({ message, delaySeconds }) => ({
      MessageBody: JSON.stringify(message),
      DelaySeconds: Math.max(0, Math.min(MAX_DELAY_SECONDS, Math.round(delaySeconds))),
    })),
    { what: 'webhook deliveries' },
  );
};
