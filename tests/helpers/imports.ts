// The user import queue against the local stack: the tests' stack runs no SQS pollers, so a test drives the
// worker (functions/user/import-users.ts) itself, in process, the way Lambda's event source mapping would.
import { GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import { handler as importUsers } from '../../functions/user/import-users.js';
import { settings } from '../../lib/core/config.js';
import { importStates } from '../../lib/user/repository.js';
import { createSqsPoller } from '../../scripts/stack/sqs-poller.js';

const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
const region = process.env.AWS_REGION ?? 'us-east-1';

let queue: { url: string; arn: string } | undefined;
const importQueue = async () => {
  if (queue) return queue;
  const name = settings().USER_IMPORT_QUEUE_NAME;
  const url = (await sqs.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl ?? '';
  queue = { url, arn: `arn:aws:sqs:${region}:000000000000:${name}` };
  return queue;
};

/** One receive of the import queue and the worker's invocations (failed messages come back after 1 s). */
export const pollImports = async () => {
  const { url, arn } = await importQueue();
  return createSqsPoller({
    client: sqs,
    queueUrl: url,
    queueArn: arn,
    region,
    batchSize: 5,
    reportBatchItemFailures: true,
    visibilityTimeoutSeconds: 1,
    waitTimeSeconds: 1,
    invoke: (event) => importUsers(event),
  }).pollOnce();
};

/** Poll until a round received messages (imports are queued with a short delay), at most `rounds` times. */
export const pollImportsUntilReceived = async (rounds = 10) => {
  for (let i = 0; i < rounds; i++) {
    const round = await pollImports();
    if (round.received > 0) return round;
  }
  throw new Error('the import queue stayed empty');
};

/**
 * Run the import until every one of these users has its provider subject or is merged (other test files' users
 * queued meanwhile are imported too; another file's poll may import these: only the outcome is awaited).
 */
export const importNow = async (arcIds: string[], timeoutMs = 60_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const states = await importStates(arcIds);
    if (arcIds.every((id) => states.get(id)?.subject || states.get(id)?.mergedAt)) return;
    if (Date.now() > deadline) throw new Error(`users not imported within ${timeoutMs} ms`);
    await pollImports();
  }
};
