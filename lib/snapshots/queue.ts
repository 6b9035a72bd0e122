// The snapshot queue: the scheduler's producer side. Queue URL from SNAPSHOT_QUEUE_URL (serverless
// `Ref: SnapshotQueue`), else resolved once from SNAPSHOT_QUEUE_NAME with GetQueueUrl (local stack, tests).
import { queueUrl, sendMessageBatches } from '../adapters/sqs.js';
import { settings } from '../core/config.js';

/** Send message bodies to the snapshot queue, 10 per request; throws when any entry was not accepted. */
export const sendSnapshotMessages = async (bodies: readonly string[]): Promise<number> => {
  const { SNAPSHOT_QUEUE_URL, SNAPSHOT_QUEUE_NAME } = settings();
  const QueueUrl = await queueUrl(SNAPSHOT_QUEUE_URL, SNAPSHOT_QUEUE_NAME);
  await sendMessageBatches(
    QueueUrl,
    bodies.map((MessageBody) => ({ MessageBody })),
    { what: 'snapshot message(s)' },
  );
  return bodies.length;
};
