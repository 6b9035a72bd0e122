// The delivery queue (WebhookQueue): one message per delivery attempt, its delay the retry's wait (SQS holds a
// message at most 15 minutes; a longer wait is carried as `notBefore` and the message re-queued until then).
import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { webhookQueueUrl } from '../outbox/index.js';
import type { DeliveryMessage } from './model.js';

/** SQS's longest message delay. */
export const MAX_DELAY_SECONDS = 900;

let client: SQSClient | undefined;
// Local queue URLs point at the stand-in's own host; follow the configured endpoint instead (local stack).
const sqs = () => (client ??= new SQSClient({ useQueueUrlAsEndpoint: false }));

export interface QueuedDelivery {
  message: DeliveryMessage;
  delaySeconds: number;
}

/** Queue delivery attempts, 10 per request; throws when SQS refused any. */
export const queueDeliveries = async (deliveries: readonly QueuedDelivery[]): Promise<void> => {
  if (deliveries.length === 0) return;
  const QueueUrl = await webhookQueueUrl(sqs());
  for (let i = 0; i < deliveries.length; i += 10) {
    const chunk = deliveries.slice(i, i + 10);
    const { Failed = [] } = await sqs().send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: chunk.map(({ message, delaySeconds }, j) => ({
          Id: String(j),
          MessageBody: JSON.stringify(message),
          DelaySeconds: Math.max(0, Math.min(MAX_DELAY_SECONDS, Math.round(delaySeconds))),
        })),
      }),
    );
    if (Failed.length > 0)
      throw new Error(`SQS refused ${Failed.length} webhook deliveries: ${Failed[0]?.Message}`);
  }
};
