// A local stand-in for Lambda's SQS event source mapping: receive, invoke the function with an SQS event, delete
// what succeeded. Used by `npm run dev` (one poller per `sqs` event of serverless.yml, invoking the function
// through serverless offline) and by tests/hardening/dlq.test.ts (invoking the handler in process).
//
// What it does, as Lambda documents its SQS event source mapping:
// - ReceiveMessage up to 10 messages (long polling, all system and message attributes), then invoke the
//   function with batches of at most `batchSize` records, one batch after the other.
// - The function throws (or serverless offline reports a function error): the whole batch failed, nothing is
//   deleted.
// - It returns normally without ReportBatchItemFailures: every record of the batch is deleted.
// - With ReportBatchItemFailures it may return `{ batchItemFailures: [{ itemIdentifier }] }`: every record
//   except those listed is deleted. An empty or absent list means all succeeded; an identifier that is empty or
//   not a messageId of the batch makes the whole batch a failure (Lambda's rule).
// - A failed record is left alone: SQS makes it visible again when its visibility timeout ends and counts each
//   receive. Moving a message to the dead-letter queue after `maxReceiveCount` receives is SQS's job, not the
//   poller's: fauxqs does it in ReceiveMessage (node_modules/fauxqs/dist/sqs/sqsStore.js, `dequeue`: the
//   receive that would exceed maxReceiveCount moves the message to the RedrivePolicy's target), like SQS.
// Not modelled: Lambda's concurrent pollers (one here, batches in sequence), MaximumBatchingWindowInSeconds
// (batches are sent as received), FIFO group ordering, and scaling/backoff of the poller itself.
import {
  DeleteMessageBatchCommand,
  type Message,
  type MessageAttributeValue,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSMessageAttributes, SQSRecord, SQSRecordAttributes } from 'aws-lambda';
import type { StackLogger } from './log.js';

export interface SqsPollerOptions {
  client: SQSClient;
  queueUrl: string;
  queueArn: string;
  region: string;
  /** The mapping's BatchSize: most records per invocation (Lambda's default for SQS is 10). */
  batchSize?: number;
  /** `functionResponseType: ReportBatchItemFailures` on the mapping. */
  reportBatchItemFailures?: boolean;
  /** Asked for on each receive; the queue's own VisibilityTimeout when absent (Lambda uses the queue's). */
  visibilityTimeoutSeconds?: number;
  /** Long polling wait per receive (Lambda uses 20 s). */
  waitTimeSeconds?: number;
  /** The function: resolves with its response, rejects when the invocation failed. */
  invoke: (event: SQSEvent) => Promise<unknown>;
  log?: StackLogger;
}

/** What one receive-invoke-delete round did. */
export interface PollRound {
  received: number;
  invocations: number;
  deleted: number;
  /** Records left for SQS to deliver again (failed items and records of failed batches). */
  failed: number;
}

export interface SqsPoller {
  /** One ReceiveMessage, the invocations of its batches and the deletes. */
  pollOnce(signal?: AbortSignal): Promise<PollRound>;
  /** Poll continuously until `stop`. */
  start(): void;
  stop(): Promise<void>;
}

/** The SQS record Lambda builds from a received message. */
export function toSqsRecord(message: Message, queueArn: string, region: string): SQSRecord {
  const system = message.Attributes ?? {};
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: system.ApproximateReceiveCount ?? '1',
      SentTimestamp: system.SentTimestamp ?? String(Date.now()),
      SenderId: system.SenderId ?? '000000000000',
      ApproximateFirstReceiveTimestamp: system.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      ...(system.MessageGroupId ? { MessageGroupId: system.MessageGroupId } : {}),
      ...(system.MessageDeduplicationId ? { MessageDeduplicationId: system.MessageDeduplicationId } : {}),
      ...(system.SequenceNumber ? { SequenceNumber: system.SequenceNumber } : {}),
    } as SQSRecordAttributes,
    messageAttributes: lambdaMessageAttributes(message.MessageAttributes ?? {}),
    md5OfBody: message.MD5OfBody ?? '',
    ...(message.MD5OfMessageAttributes ? { md5OfMessageAttributes: message.MD5OfMessageAttributes } : {}),
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: region,
  };
}

// Lambda's records spell message attributes in camel case (stringValue, dataType, ...).
function lambdaMessageAttributes(attributes: Record<string, MessageAttributeValue>): SQSMessageAttributes {
  return Object.fromEntries(
    Object.entries(attributes).map(([name, value]) => [
      name,
      {
        dataType: value.DataType ?? 'String',
        ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
        ...(value.BinaryValue !== undefined
          ? { binaryValue: Buffer.from(value.BinaryValue).toString('base64') }
          : {}),
        stringListValues: value.StringListValues ?? [],
        binaryListValues: (value.BinaryListValues ?? []).map((b) => Buffer.from(b).toString('base64')),
      },
    ]),
  );
}

/**
 * The messageIds of a batch to delete after an invocation that returned `response`, by Lambda's rules; an empty
 * list when the whole batch counts as failed.
 */
export function succeededIds(
  batch: readonly SQSRecord[],
  response: unknown,
  reportBatchItemFailures: boolean,
): string[] {
  const all = batch.map((record) => record.messageId);
  if (!reportBatchItemFailures) return all;
  const failures = (response as { batchItemFailures?: unknown } | null | undefined)?.batchItemFailures;
  if (failures === undefined || failures === null) return all;
  if (!Array.isArray(failures)) return [];
  const failed = new Set<string>();
  for (const failure of failures) {
    const id = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    // An unusable identifier fails the whole batch.
    if (typeof id !== 'string' || id === '' || !all.includes(id)) return [];
    failed.add(id);
  }
  return all.filter((id) => !failed.has(id));
}

export function createSqsPoller(options: SqsPollerOptions): SqsPoller {
  const batchSize = Math.min(10, Math.max(1, options.batchSize ?? 10));
  const report = options.reportBatchItemFailures ?? false;
  const log = options.log;

  const deleteMessages = async (records: readonly SQSRecord[]): Promise<number> => {
    let deleted = 0;
    for (let i = 0; i < records.length; i += 10) {
      const chunk = records.slice(i, i + 10);
      const result = await options.client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: options.queueUrl,
          Entries: chunk.map((record, j) => ({ Id: String(j), ReceiptHandle: record.receiptHandle })),
        }),
      );
      deleted += result.Successful?.length ?? 0;
      for (const failure of result.Failed ?? [])
        log?.warn(`sqs poller: could not delete a message of ${options.queueArn}: ${failure.Message ?? ''}`);
    }
    return deleted;
  };

  const pollOnce = async (signal?: AbortSignal): Promise<PollRound> => {
    const { Messages = [] } = await options.client.send(
      new ReceiveMessageCommand({
        QueueUrl: options.queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: options.waitTimeSeconds ?? 20,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
        ...(options.visibilityTimeoutSeconds === undefined
          ? {}
          : { VisibilityTimeout: options.visibilityTimeoutSeconds }),
      }),
      signal ? { abortSignal: signal } : {},
    );
    const records = Messages.map((message) => toSqsRecord(message, options.queueArn, options.region));
    const round: PollRound = { received: records.length, invocations: 0, deleted: 0, failed: 0 };
    for (let i = 0; i < records.length; i += batchSize) {
      const batch = records.slice(i, i + batchSize);
      round.invocations++;
      let ok: string[];
      try {
        ok = succeededIds(batch, await options.invoke({ Records: batch }), report);
      } catch (error) {
        log?.warn(
          `sqs poller: invocation for ${options.queueArn} failed, ${batch.length} record(s) will be redelivered: ` +
            (error instanceof Error ? error.message : String(error)),
        );
        ok = [];
      }
      round.deleted += await deleteMessages(batch.filter((record) => ok.includes(record.messageId)));
      round.failed += batch.length - ok.length;
    }
    return round;
  };

  let running: Promise<void> | undefined;
  let controller: AbortController | undefined;
  return {
    pollOnce,
    start() {
      if (running) return;
      const abort = new AbortController();
      controller = abort;
      running = (async () => {
        while (!abort.signal.aborted) {
          try {
            await pollOnce(abort.signal);
          } catch (error) {
            if (abort.signal.aborted) break;
            log?.warn(
              `sqs poller: receive from ${options.queueArn} failed: ${error instanceof Error ? error.message : String(error)}`,
            );
            await new Promise((resolve) => setTimeout(resolve, 1_000));
          }
        }
      })();
    },
    async stop() {
      controller?.abort();
      await running;
      running = undefined;
    },
  };
}
