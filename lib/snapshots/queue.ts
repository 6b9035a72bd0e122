// SQS adapter of the snapshot queue: the scheduler's producer side. Queue URL from SNAPSHOT_QUEUE_URL (serverless
// `Ref: SnapshotQueue`), else resolved once from SNAPSHOT_QUEUE_NAME with GetQueueUrl (local stack, tests).
import { GetQueueUrlCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { settings } from '../core/config.js';

let client: SQSClient | undefined;
let queueUrl: string | undefined;
// Local queue URLs point at the stand-in's own host; follow the configured endpoint instead (local stack).
const sqs = () => (client ??= new SQSClient({ useQueueUrlAsEndpoint: false }));

const resolveQueueUrl = async (): Promise<string> => {
  if (queueUrl) return queueUrl;
  const { SNAPSHOT_QUEUE_URL, SNAPSHOT_QUEUE_NAME } = settings();
  queueUrl =
    SNAPSHOT_QUEUE_URL ||
    (await sqs().send(new GetQueueUrlCommand({ QueueName: SNAPSHOT_QUEUE_NAME }))).QueueUrl;
  if (!queueUrl) throw new Error(`Snapshot queue ${SNAPSHOT_QUEUE_NAME} not found`);
  return queueUrl;
};

/** Send message bodies to the snapshot queue, 10 per request; throws when any entry was not accepted. */
export const sendSnapshotMessages = async (bodies: readonly string[]): Promise<number> => {
  const QueueUrl = await resolveQueueUrl();
  for (let i = 0; i < bodies.length; i += 10) {
    const chunk = bodies.slice(i, i + 10);
    const result = await sqs().send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: chunk.map((MessageBody, j) => ({ Id: String(j), MessageBody })),
      }),
    );
    if (result.Failed && result.Failed.length > 0)
      throw new Error(
        `SQS refused ${result.Failed.length} snapshot message(s): ${result.Failed[0]?.Message}`,
      );
  }
  return bodies.length;
};
