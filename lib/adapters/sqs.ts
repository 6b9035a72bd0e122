// SQS adapter: the container's one SQS client, queue URLs by name, and the batch sender every producer uses. The
// domains keep their queues (name, setting, message shape); how a message reaches SQS is decided here, once.
import {
  type BatchResultErrorEntry,
  GetQueueUrlCommand,
  SendMessageBatchCommand,
  type SendMessageBatchRequestEntry,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { mapConcurrent } from '../core/concurrency.js';

// Local queue URLs point at the stand-in's own host; every client follows the configured endpoint instead
// (AWS_ENDPOINT_URL on the local stack; in AWS the two are the same).
const FOLLOW_ENDPOINT = { useQueueUrlAsEndpoint: false } as const;

let shared: SQSClient | undefined;

/** The container's SQS client: the SDK's retries and timeouts, for producers whose caller waits for the send. */
export const sqs = (): SQSClient => (shared ??= new SQSClient(FOLLOW_ENDPOINT));

const oneTry = new Map<number, SQSClient>();

/**
 * A client that tries once, within `timeoutMs` to connect and `timeoutMs` to answer: for a best-effort send on a
 * request's path that has a fallback (the outbox's enqueue after commit, whose relay schedule sends it later), so
 * a slow SQS costs the request at most the deadline instead of the SDK's retries.
 */
export const sqsOneTry = (timeoutMs: number): SQSClient => {
  let client = oneTry.get(timeoutMs);
  if (!client) {
    client = new SQSClient({
      ...FOLLOW_ENDPOINT,
      maxAttempts: 1,
      requestHandler: {
        connectionTimeout: timeoutMs,
        requestTimeout: timeoutMs,
        throwOnRequestTimeout: true,
      },
    });
    oneTry.set(timeoutMs, client);
  }
  return client;
};

const urls = new Map<string, Promise<string>>();

/**
 * A queue's URL: `url` when the deploy set it (`Ref: <Queue>`), else looked up from its name with GetQueueUrl
 * once per container (the local stack and tests, whose queues are named, not referenced). A failed lookup is
 * not kept: the next call asks again.
 */
export const queueUrl = (
  url: string | undefined,
  name: string,
  client: SQSClient = sqs(),
): Promise<string> => {
  if (url) return Promise.resolve(url);
  let found = urls.get(name);
  if (!found) {
    found = client.send(new GetQueueUrlCommand({ QueueName: name })).then(({ QueueUrl }) => {
      if (!QueueUrl) throw new Error(`SQS queue ${name} not found`);
      return QueueUrl;
    });
    found.catch(() => urls.get(name) === found && urls.delete(name));
    urls.set(name, found);
  }
  return found;
};

/** A message as SendMessageBatch takes it, without its `Id` (the sender numbers the entries). */
export type BatchMessage = Omit<SendMessageBatchRequestEntry, 'Id'>;

/**
 * A request's limits: SendMessageBatch's 10 entries, and 256 KiB of bodies and attributes together (SQS's cap until
 * 2025, 1 MiB since: the lower one holds everywhere, and no message sent today comes near it). A lone message above
 * it is sent alone, for SQS to judge.
 */
export const BATCH_ENTRIES = 10;
export const BATCH_BYTES = 256 * 1024;

/** Attempts of an entry SQS reported as failed, the first included, and the first wait between two. */
export const BATCH_ATTEMPTS = 4;
const BACKOFF_MS = 100;

/** Entries SQS still refused after the sender's attempts: their positions in the list sent, and SQS's reasons. */
export class SqsBatchError extends Error {
  override readonly name = 'SqsBatchError';
  constructor(
    readonly what: string,
    readonly failed: ReadonlyArray<{ index: number; code: string; message: string; senderFault: boolean }>,
  ) {
    super(
      `SQS refused ${failed.length} ${what}: ${failed
        .map((f) => `#${f.index} ${f.code}${f.message ? ` (${f.message})` : ''}`)
        .join(', ')}`,
    );
  }
}

const utf8 = (text: string | undefined) => (text ? Buffer.byteLength(text) : 0);

/** What SQS counts toward a message's size: its body, and each attribute's name, type and value. */
const sizeOf = (message: BatchMessage): number =>
  utf8(message.MessageBody) +
  Object.entries(message.MessageAttributes ?? {}).reduce(
    (sum, [name, value]) =>
      sum +
      utf8(name) +
      utf8(value.DataType) +
      utf8(value.StringValue) +
      (value.BinaryValue?.byteLength ?? 0),
    0,
  );

/** The messages' positions in requests of at most BATCH_ENTRIES entries and BATCH_BYTES bytes, in order. */
export const batchesOf = (messages: readonly BatchMessage[]): number[][] => {
  const batches: number[][] = [];
  let batch: number[] = [];
  let bytes = 0;
  for (const [index, message] of messages.entries()) {
    const size = sizeOf(message);
    if (batch.length > 0 && (batch.length === BATCH_ENTRIES || bytes + size > BATCH_BYTES)) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(index);
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
};

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One request's entries until SQS takes them: an entry it reports as failed for its own reasons (throttled, an
 * internal error) is sent again after a growing, jittered wait, BATCH_ATTEMPTS times at most; one failed by the
 * sender's fault (too large, malformed) would fail the same way again, and is given up at once.
 */
const sendBatch = async (
  client: SQSClient,
  QueueUrl: string,
  messages: readonly BatchMessage[],
  indexes: readonly number[],
): Promise<BatchResultErrorEntry[]> => {
  // The entry's Id is its position in the caller's list: unique in the request, and what an error names.
  let pending = [...indexes];
  const givenUp: BatchResultErrorEntry[] = [];
  for (let attempt = 1; ; attempt++) {
    const { Failed = [] } = await client.send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: pending.map((index) => ({ ...(messages[index] as BatchMessage), Id: String(index) })),
      }),
    );
    const retry: BatchResultErrorEntry[] = [];
    for (const entry of Failed) (entry.SenderFault ? givenUp : retry).push(entry);
    if (retry.length === 0 || attempt === BATCH_ATTEMPTS) return [...givenUp, ...retry];
    pending = retry.map((entry) => Number(entry.Id));
    const wait = BACKOFF_MS * 2 ** (attempt - 1);
    await pause(wait / 2 + Math.random() * (wait / 2));
  }
};

export interface SendBatchOptions {
  /** What the messages are, for the error (`snapshot message(s)`). */
  what: string;
  /** Requests in flight at once (1: in order, stopping at the first request that fails). */
  concurrency?: number;
  client?: SQSClient;
}

/**
 * Send messages to a queue, as few SendMessageBatch requests as SQS's limits allow. Throws an SqsBatchError naming
 * the messages SQS still refused after its attempts (the requests before it were sent; with concurrency 1 none
 * after it is), or the SDK's error when a request itself failed after the SDK's retries.
 */
export const sendMessageBatches = async (
  QueueUrl: string,
  messages: readonly BatchMessage[],
  { what, concurrency = 1, client = sqs() }: SendBatchOptions,
): Promise<void> => {
  await mapConcurrent(batchesOf(messages), concurrency, async (indexes) => {
    const failed = await sendBatch(client, QueueUrl, messages, indexes);
    if (failed.length > 0)
      throw new SqsBatchError(
        what,
        failed
          .map((entry) => ({
            index: Number(entry.Id),
            code: entry.Code ?? 'Unknown',
            message: entry.Message ?? '',
            senderFault: entry.SenderFault ?? false,
          }))
          .sort((a, b) => a.index - b.index),
      );
  });
};
