// The settlement queue: the schedule's producer side (SQS, URL from SETTLEMENT_QUEUE_URL = `Ref: SettlementQueue`)
// and the consumer's batch, one (game, day) per message, failures reported per item (ReportBatchItemFailures).
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { sendMessageBatches, sqs } from '../../adapters/sqs.js';
import { requireSetting } from '../../core/config.js';
import { processQueueBatch, type QueueRecord } from '../../core/queue-batch.js';
import type { PayoutRecord } from './repository.js';
import { type PeriodCloseMessage, settlementMessage } from './schedule.js';

/** SendMessageBatch requests in flight at once. */
const SEND_CONCURRENCY = 16;

/**
 * Send message bodies to the settlement queue, 10 per SendMessageBatch, several requests at once; throws when any
 * entry was not accepted (the next hourly run queues what is still unsettled).
 */
export const sendSettlementMessages = async (bodies: readonly string[]): Promise<number> => {
  const QueueUrl = requireSetting('SETTLEMENT_QUEUE_URL');
  await sendMessageBatches(
    QueueUrl,
    bodies.map((MessageBody) => ({ MessageBody })),
    { what: 'settlement message(s)', concurrency: SEND_CONCURRENCY },
  );
  return bodies.length;
};

/**
 * Settle each message's (game, day), or close its tournament period; a failed or malformed one is reported for
 * redelivery (then the DLQ).
 */
export const processSettlementBatch = (
  records: readonly QueueRecord[],
  settle: (gameId: string, day: string) => Promise<unknown>,
  closePeriod?: (message: PeriodCloseMessage) => Promise<unknown>,
): Promise<{ batchItemFailures: Array<{ itemIdentifier: string }> }> =>
  processQueueBatch(records, settlementMessage, 'settlement', (message) => {
    if ('day' in message) return settle(message.gameId, message.day);
    if (!closePeriod) throw new Error('This consumer does not close tournament periods');
    return closePeriod(message);
  });

/**
 * A payout line that kept failing, for the operator (the payout DLQ, PAYOUT_DLQ_URL; its alarm pages). The line's
 * amount is carried to the recipient's next payout; the message says what failed.
 */
export const parkPayout = async (
  record: PayoutRecord,
  queueUrl: string = requireSetting('PAYOUT_DLQ_URL'),
): Promise<void> => {
  await sqs().send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: JSON.stringify({
        gameId: record.gameId,
        day: record.day,
        ...(record.prize ? { tournament: record.prize } : {}),
        arcId: record.arcId,
        wallet: record.wallet,
        due: record.due,
        send: record.send,
        failures: record.failures ?? 0,
        lastError: record.lastError ?? null,
        signatures: [...(record.previousSignatures ?? []), ...(record.signature ? [record.signature] : [])],
      }),
    }),
  );
};
