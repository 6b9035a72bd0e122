// A poison message on the snapshot queue reaches the dead-letter queue after 5 receives, end to end, while the
// rest of its batch succeeds: real queues on fauxqs (the stack's SQS stand-in), the real consumer
// (functions/snapshots/build-snapshots.ts, in process), and a local event source mapping between them
// (scripts/stack/sqs-poller.ts, the same poller `npm run dev` runs against serverless offline).
//
// The queue pair is created from serverless.yml's own SnapshotQueue / SnapshotDlq resources (attributes and
// RedrivePolicy, through the stack's provisioning code) under private names, so that other test files that use
// the stack's snapshot queue at the same time neither see these messages nor take them. The mapping's batch
// size and ReportBatchItemFailures come from buildSnapshots' `sqs` event. Only the visibility timeout is
// shortened (asked for on each receive, as a test would lower the queue attribute) so 5 receives take seconds.
//
// fauxqs implements redrive itself: the receive that would exceed maxReceiveCount moves the message to the
// RedrivePolicy's target (node_modules/fauxqs/dist/sqs/sqsStore.js, `dequeue`). The poller does not.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { handler as buildSnapshots } from '../../functions/snapshots/build-snapshots.js';
import type { CfnResource } from '../../scripts/stack/config.js';
import type { RefScope } from '../../scripts/stack/intrinsics.js';
import type { ProvisionedQueue } from '../../scripts/stack/provision-sqs.js';
import { createQueues } from '../../scripts/stack/resources.js';
import { createSqsPoller, succeededIds } from '../../scripts/stack/sqs-poller.js';
import { functionsConfig } from '../helpers/deploy-config.js';

interface Serverless {
  resources: { Resources: Record<string, CfnResource> };
}
const serverless = parse(
  readFileSync(new URL('../../serverless.yml', import.meta.url), 'utf8'),
) as Serverless;
const resources = serverless.resources.Resources;
const mapping = functionsConfig().buildSnapshots?.events?.find((event) => event.sqs)?.sqs ?? {};
const sourceId = (mapping.arn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
const redrive = resources[sourceId]?.Properties?.RedrivePolicy as {
  deadLetterTargetArn: { 'Fn::GetAtt': [string, string] };
  maxReceiveCount: number;
};
const dlqId = redrive.deadLetterTargetArn['Fn::GetAtt'][0];
const MAX_RECEIVES = Number(redrive.maxReceiveCount);
const VISIBILITY_SECONDS = 2;
const region = process.env.AWS_REGION ?? 'us-east-1';

const sqs = new SQSClient({});
let source: ProvisionedQueue;
let dlq: ProvisionedQueue;

/** The two queues as serverless.yml declares them, with private names; the redrive policy points at the copy. */
const createQueuePair = async (): Promise<void> => {
  const suffix = randomUUID().slice(0, 8);
  const renamed = (id: string, name: string): CfnResource => {
    const resource = resources[id];
    if (!resource) throw new Error(`serverless.yml declares no ${id}`);
    return { ...resource, Properties: { ...resource.Properties, QueueName: name } };
  };
  const scope: RefScope = {
    refs: new Map(),
    pseudo: { 'AWS::Region': region, 'AWS::AccountId': '000000000000', 'AWS::StackName': 'dlq-test' },
  };
  const queues = await createQueues(
    {
      [sourceId]: renamed(sourceId, `dlq-test-${suffix}-source`),
      [dlqId]: renamed(dlqId, `dlq-test-${suffix}-dlq`),
    },
    scope,
    sqs,
  );
  source = queues[sourceId] as ProvisionedQueue;
  dlq = queues[dlqId] as ProvisionedQueue;
};

const attributes = async (queue: ProvisionedQueue) =>
  (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queue.url, AttributeNames: ['All'] })))
    .Attributes ?? {};

const queueIsEmpty = async (queue: ProvisionedQueue) => {
  const a = await attributes(queue);
  return a.ApproximateNumberOfMessages === '0' && a.ApproximateNumberOfMessagesNotVisible === '0';
};

/** Every message now in a queue (received with a long visibility timeout, so each is seen once). */
const drain = async (queue: ProvisionedQueue) => {
  const { Messages = [] } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queue.url,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 1,
      VisibilityTimeout: 60,
      MessageSystemAttributeNames: ['All'],
    }),
  );
  return Messages;
};

const randomMint = () => bs58.encode(randomBytes(32));

interface Invocation {
  records: Array<{ messageId: string; receiveCount: number }>;
  response: SQSBatchResponse;
}

/** A poller invoking the real consumer in process; every invocation and its answer is recorded. */
const pollerFor = (invocations: Invocation[], invoke = buildSnapshots) =>
  createSqsPoller({
    client: sqs,
    queueUrl: source.url,
    queueArn: source.arn,
    region,
    batchSize: Number(mapping.batchSize ?? 10),
    reportBatchItemFailures: mapping.functionResponseType === 'ReportBatchItemFailures',
    visibilityTimeoutSeconds: VISIBILITY_SECONDS,
    waitTimeSeconds: 1,
    invoke: async (event: SQSEvent) => {
      const records = event.Records.map((r) => ({
        messageId: r.messageId,
        receiveCount: Number(r.attributes.ApproximateReceiveCount),
      }));
      try {
        const response = await invoke(event);
        invocations.push({ records, response });
        return response;
      } catch (error) {
        invocations.push({ records, response: { batchItemFailures: [] } });
        throw error;
      }
    },
  });

beforeAll(async () => {
  await createQueuePair();
});

afterAll(() => {
  sqs.destroy();
});

describe('snapshot queue redrive (serverless.yml: SnapshotQueue → SnapshotDlq)', () => {
  it('is configured as the test assumes', async () => {
    expect(mapping).toMatchObject({ batchSize: 5, functionResponseType: 'ReportBatchItemFailures' });
    expect(MAX_RECEIVES).toBe(5);
    const policy = JSON.parse((await attributes(source)).RedrivePolicy ?? '{}') as Record<string, unknown>;
    expect(policy).toEqual({ deadLetterTargetArn: dlq.arn, maxReceiveCount: MAX_RECEIVES });
  });

  it(`moves a poison message to the DLQ after exactly ${MAX_RECEIVES} receives; the good messages are processed once`, async () => {
    const good = Array.from({ length: 4 }, () => JSON.stringify({ coinMint: randomMint() }));
    const poisonBody = '{"coinMint": ';
    const bodies = [good[0], good[1], poisonBody, good[2], good[3]] as string[];
    const sent = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: source.url,
        Entries: bodies.map((MessageBody, i) => ({ Id: String(i), MessageBody })),
      }),
    );
    expect(sent.Failed ?? []).toEqual([]);
    const idOf = new Map((sent.Successful ?? []).map((entry) => [Number(entry.Id), entry.MessageId ?? '']));
    const poisonId = idOf.get(2) ?? '';
    const goodIds = [0, 1, 3, 4].map((i) => idOf.get(i) ?? '');

    const invocations: Invocation[] = [];
    const poller = pollerFor(invocations);
    const started = Date.now();
    let deleted = 0;
    // Poll like the event source mapping until the queue is empty (the poison left for the DLQ) or 60 s pass.
    while (Date.now() - started < 60_000) {
      deleted += (await poller.pollOnce()).deleted;
      if (await queueIsEmpty(source)) break;
    }
    const elapsed = Date.now() - started;

    // The first invocation carried the whole batch; only the poison message was reported as failed.
    expect(invocations[0]?.records.map((r) => r.messageId).sort()).toEqual([...goodIds, poisonId].sort());
    expect(invocations[0]?.response).toEqual({ batchItemFailures: [{ itemIdentifier: poisonId }] });
    // Each good message was delivered once and deleted; the poison one was delivered exactly 5 times.
    const deliveries = (id: string) =>
      invocations.flatMap((inv) => inv.records.filter((r) => r.messageId === id).map((r) => r.receiveCount));
    for (const id of goodIds) expect(deliveries(id), id).toEqual([1]);
    expect(deliveries(poisonId)).toEqual([1, 2, 3, 4, 5]);
    expect(deleted).toBe(goodIds.length);
    expect(invocations.slice(1).every((inv) => inv.records.length === 1)).toBe(true);

    // The queue is empty and the DLQ holds the poison message, body intact, and nothing else.
    expect(await queueIsEmpty(source)).toBe(true);
    const dead = await drain(dlq);
    expect(dead.map((m) => ({ id: m.MessageId, body: m.Body }))).toEqual([
      { id: poisonId, body: poisonBody },
    ]);
    expect(await drain(dlq)).toEqual([]);
    console.info(
      `poison message dead-lettered after ${deliveries(poisonId).length} receives in ${elapsed} ms ` +
        `(visibility timeout ${VISIBILITY_SECONDS} s); ${invocations.length} invocations, ${deleted} deleted`,
    );
  }, 90_000);

  it('redelivers the whole batch when the function fails (no partial delete), then deletes it', async () => {
    const bodies = [randomMint(), randomMint()].map((coinMint) => JSON.stringify({ coinMint }));
    await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: source.url,
        Entries: bodies.map((MessageBody, i) => ({ Id: String(i), MessageBody })),
      }),
    );
    const invocations: Invocation[] = [];
    let calls = 0;
    // The first invocation dies (a timeout, an out-of-memory, an unhandled error), the next ones succeed.
    const flaky = async (event: SQSEvent) => {
      calls++;
      if (calls === 1) throw new Error('function error');
      return buildSnapshots(event);
    };
    const poller = pollerFor(invocations, flaky);
    const started = Date.now();
    while (Date.now() - started < 30_000) {
      await poller.pollOnce();
      if (await queueIsEmpty(source)) break;
    }
    expect(invocations.map((inv) => inv.records.map((r) => r.receiveCount))).toEqual([
      [1, 1],
      [2, 2],
    ]);
    expect(invocations[1]?.response).toEqual({ batchItemFailures: [] });
    expect(await queueIsEmpty(source)).toBe(true);
    expect(await drain(dlq)).toEqual([]);
  }, 60_000);
});

describe("the poller's delete rule (Lambda's ReportBatchItemFailures semantics)", () => {
  const batch = ['a', 'b', 'c'].map((messageId) => ({ messageId }) as SQSEvent['Records'][number]);
  it.each([
    ['no response', undefined, true, ['a', 'b', 'c']],
    ['an empty list', { batchItemFailures: [] }, true, ['a', 'b', 'c']],
    ['one failure', { batchItemFailures: [{ itemIdentifier: 'b' }] }, true, ['a', 'c']],
    ['an unknown identifier (whole batch fails)', { batchItemFailures: [{ itemIdentifier: 'x' }] }, true, []],
    ['an empty identifier (whole batch fails)', { batchItemFailures: [{ itemIdentifier: '' }] }, true, []],
    ['a list that is no list (whole batch fails)', { batchItemFailures: 'b' }, true, []],
    [
      'failures without ReportBatchItemFailures (ignored)',
      { batchItemFailures: [{ itemIdentifier: 'b' }] },
      false,
      ['a', 'b', 'c'],
    ],
  ])('%s', (_, response, report, expected) => {
    expect(succeededIds(batch, response, report)).toEqual(expected);
  });
});
