// An SQS consumer's batch (ReportBatchItemFailures): each record on its own; a malformed body or a failed handling
// is reported as a batch item failure (SQS redelivers it, then moves it to the DLQ), the rest are deleted.
import * as z from 'zod/mini';
import { logger } from './logger.js';
import { errorFields } from './original-stack.js';

/** An SQS record as a consumer needs it. */
export interface QueueRecord {
  messageId: string;
  body: string;
}

export const processQueueBatch = async <T extends Record<string, unknown>>(
  records: readonly QueueRecord[],
  schema: z.ZodMiniType<T>,
  /** Names the messages in the logs ("snapshot", "settlement"). */
  what: string,
  handle: (message: T) => Promise<unknown>,
): Promise<{ batchItemFailures: Array<{ itemIdentifier: string }> }> => {
  const batchItemFailures: Array<{ itemIdentifier: string }> = [];
  for (const record of records) {
    let body: unknown;
    try {
      body = JSON.parse(record.body);
    } catch {
      body = undefined;
    }
    const message = z.safeParse(schema, body);
    if (!message.success) {
      logger.error(`malformed ${what} message`, { messageId: record.messageId });
      batchItemFailures.push({ itemIdentifier: record.messageId });
      continue;
    }
    try {
      await handle(message.data);
    } catch (error) {
      logger.error(`${what} failed`, { ...message.data, ...errorFields(error) });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
};
