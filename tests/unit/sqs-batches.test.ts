// The SQS adapter's batch sender (lib/adapters/sqs.ts): requests within SendMessageBatch's limits, entries SQS
// reports as failed sent again a bounded number of times, then an error naming them. SQS is a stub
// (aws-sdk-client-mock) on a client of the test's own, so the failures can be chosen and nothing leaks to others.
import {
  GetQueueUrlCommand,
  SendMessageBatchCommand,
  type SendMessageBatchCommandInput,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  BATCH_ATTEMPTS,
  BATCH_BYTES,
  type BatchMessage,
  batchesOf,
  queueUrl,
  SqsBatchError,
  sendMessageBatches,
} from '../../lib/adapters/sqs.js';

const QUEUE = 'https://sqs.us-east-1.amazonaws.com/000000000000/test';
const client = new SQSClient({
  region: 'us-east-1',
  credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
});
const sqs = mockClient(client);

const messages = (count: number): BatchMessage[] =>
  Array.from({ length: count }, (_, i) => ({ MessageBody: `{"n":${i}}`, DelaySeconds: i % 3 }));
const sent = () =>
  sqs.commandCalls(SendMessageBatchCommand).map((call) => call.args[0].input as SendMessageBatchCommandInput);
const ids = () => sent().map((input) => input.Entries?.map((entry) => entry.Id));

/** Answers SendMessageBatch with the entries `fail` picks as failed (the rest successful). */
const answer = (fail: (id: string, call: number) => { SenderFault: boolean } | undefined) => {
  let call = 0;
  sqs.on(SendMessageBatchCommand).callsFake((input: SendMessageBatchCommandInput) => {
    call++;
    const entries = input.Entries ?? [];
    const failed = entries.flatMap((entry) => {
      const fault = fail(entry.Id ?? '', call);
      return fault
        ? [{ Id: entry.Id, Code: fault.SenderFault ? 'InvalidParameterValue' : 'InternalError', ...fault }]
        : [];
    });
    return {
      Successful: entries
        .filter((entry) => !failed.some((f) => f.Id === entry.Id))
        .map((entry) => ({ Id: entry.Id, MessageId: `m-${entry.Id}`, MD5OfMessageBody: '' })),
      Failed: failed,
    };
  });
};

/** The sender's backoff runs on fake timers: the test waits for no real time. */
const run = async <T>(promise: Promise<T>): Promise<T> => {
  const settled = promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  await vi.runAllTimersAsync();
  const outcome = (await settled) as { value?: T; error?: unknown };
  if ('error' in outcome) throw outcome.error;
  return outcome.value as T;
};

beforeEach(() => {
  sqs.reset();
  vi.useFakeTimers({ toFake: ['setTimeout'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('batches', () => {
  it('sends 10 entries a request, in order, each with its body and delay, numbered by its place in the list', async () => {
    answer(() => undefined);
    const list = messages(23);
    await run(sendMessageBatches(QUEUE, list, { what: 'test message(s)', client }));
    expect(ids()).toEqual([
      ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'],
      ['10', '11', '12', '13', '14', '15', '16', '17', '18', '19'],
      ['20', '21', '22'],
    ]);
    expect(sent().flatMap((input) => input.Entries ?? [])).toEqual(
      list.map((message, i) => ({ ...message, Id: String(i) })),
    );
    expect(sent().every((input) => input.QueueUrl === QUEUE)).toBe(true);
  });

  it('starts a new request before the bodies and attributes would pass 256 KiB; a lone larger message goes alone', () => {
    const body = (bytes: number) => ({ MessageBody: 'x'.repeat(bytes) });
    expect(batchesOf([body(100_000), body(100_000), body(100_000), body(10)])).toEqual([
      [0, 1],
      [2, 3],
    ]);
    expect(batchesOf([body(10), body(BATCH_BYTES + 1), body(10)])).toEqual([[0], [1], [2]]);
    // Attributes count: name, type and value.
    const attributed = {
      MessageBody: 'x'.repeat(BATCH_BYTES / 2),
      MessageAttributes: { a: { DataType: 'String', StringValue: 'y' } },
    };
    expect(batchesOf([attributed, attributed])).toEqual([[0], [1]]);
    expect(batchesOf([])).toEqual([]);
  });

  it('sends nothing for no messages', async () => {
    await run(sendMessageBatches(QUEUE, [], { what: 'test message(s)', client }));
    expect(sent()).toEqual([]);
  });
});

describe('failed entries', () => {
  it('sends again only the entries SQS failed for its own reasons, until it takes them', async () => {
    // Entries 3 and 7 fail twice (InternalError), then are taken.
    answer((id, call) => (['3', '7'].includes(id) && call <= 2 ? { SenderFault: false } : undefined));
    const list = messages(12);
    await run(sendMessageBatches(QUEUE, list, { what: 'test message(s)', client }));
    expect(ids()).toEqual([
      ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'],
      ['3', '7'],
      ['3', '7'],
      ['10', '11'],
    ]);
    // The retried entries are the same messages.
    expect(sent()[1]?.Entries).toEqual([
      { ...list[3], Id: '3' },
      { ...list[7], Id: '7' },
    ]);
  });

  it(`gives up after ${BATCH_ATTEMPTS} attempts with an error naming the entries, and sends no later request`, async () => {
    answer((id) => (id === '4' ? { SenderFault: false } : undefined));
    const error = await run(
      sendMessageBatches(QUEUE, messages(15), { what: 'test message(s)', client }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SqsBatchError);
    expect((error as SqsBatchError).failed).toEqual([
      { index: 4, code: 'InternalError', message: '', senderFault: false },
    ]);
    expect((error as Error).message).toBe('SQS refused 1 test message(s): #4 InternalError');
    expect(ids()).toEqual([
      ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'],
      ...Array.from({ length: BATCH_ATTEMPTS - 1 }, () => ['4']),
    ]);
  });

  it('does not send again an entry failed by the sender’s fault: it would fail the same way', async () => {
    answer((id) => (id === '1' ? { SenderFault: true } : id === '2' ? { SenderFault: false } : undefined));
    const error = await run(
      sendMessageBatches(QUEUE, messages(3), { what: 'test message(s)', client }),
    ).catch((e: unknown) => e);
    // 1 is given up at once; 2, failed by SQS each time, is retried until the attempts run out: both are named.
    expect((error as SqsBatchError).failed.map((f) => [f.index, f.senderFault])).toEqual([
      [1, true],
      [2, false],
    ]);
    expect(ids()).toEqual([['0', '1', '2'], ...Array.from({ length: BATCH_ATTEMPTS - 1 }, () => ['2'])]);
  });

  it('with several requests in flight, sends every request, then throws for the one that failed', async () => {
    answer((id) => (id === '12' ? { SenderFault: true } : undefined));
    const error = await run(
      sendMessageBatches(QUEUE, messages(35), { what: 'test message(s)', client, concurrency: 4 }),
    ).catch((e: unknown) => e);
    expect((error as SqsBatchError).failed.map((f) => f.index)).toEqual([12]);
    expect(ids().map((batch) => batch?.[0])).toEqual(['0', '10', '20', '30']);
  });
});

describe('queue URLs', () => {
  it('uses the deployed URL as is, else looks the name up once per container', async () => {
    sqs.on(GetQueueUrlCommand).resolves({ QueueUrl: QUEUE });
    expect(await queueUrl('https://deployed/queue', 'unit-sqs-a', client)).toBe('https://deployed/queue');
    expect(sqs.commandCalls(GetQueueUrlCommand)).toHaveLength(0);
    const both = await Promise.all([
      queueUrl(undefined, 'unit-sqs-a', client),
      queueUrl('', 'unit-sqs-a', client),
    ]);
    expect(both).toEqual([QUEUE, QUEUE]);
    expect(await queueUrl(undefined, 'unit-sqs-a', client)).toBe(QUEUE);
    expect(sqs.commandCalls(GetQueueUrlCommand)).toHaveLength(1);
  });

  it('does not keep a failed lookup', async () => {
    sqs.on(GetQueueUrlCommand).rejectsOnce(new Error('QueueDoesNotExist')).resolves({ QueueUrl: QUEUE });
    await expect(queueUrl(undefined, 'unit-sqs-b', client)).rejects.toThrow('QueueDoesNotExist');
    expect(await queueUrl(undefined, 'unit-sqs-b', client)).toBe(QUEUE);
  });
});
