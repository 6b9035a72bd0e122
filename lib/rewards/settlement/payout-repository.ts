// A settlement line's transfer record (./repository.ts PayoutRecord): created once, its signature recorded
// before the transfer is sent, completed with the recipient's carry and the pool's books in one transaction.
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  dynamo,
  isConditionFailure,
  recordPendingSignature,
  type TransactItem,
  transactNamed,
} from '../../adapters/dynamodb.js';
import { outboxItem } from '../../outbox/index.js';
import { type PrizeRef, settlementKeys, settlementTable } from './keys.js';
import type { PayoutLine } from './model.js';
import { carriesChanged, type PayoutRecord } from './repository.js';

/** The line's transfer record, created on first use (a concurrent creator's record is returned). */
export const ensurePayoutRecord = async (
  run: { gameId: string; day: string; prize?: PrizeRef | undefined },
  line: PayoutLine,
  now: string,
): Promise<PayoutRecord> => {
  const { gameId, day } = run;
  const prize = run.prize && { tournamentId: run.prize.tournamentId, periodId: run.prize.periodId };
  const key = settlementKeys.payout(gameId, day, line.arcId, prize);
  const record: PayoutRecord = {
    ...line,
    gameId,
    day,
    ...(prize ? { prize } : {}),
    status: 'pending',
    createdAt: now,
  };
  try {
    await dynamo().send(
      new PutCommand({
        TableName: settlementTable(),
        Item: {
          ...key,
          ...record,
          recipient: line.arcId,
          recipientSort: settlementKeys.recipientSort(day, gameId, prize),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return record;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const { Item } = await dynamo().send(
      new GetCommand({ TableName: settlementTable(), Key: key, ConsistentRead: true }),
    );
    return Item as PayoutRecord;
  }
};

/**
 * Record the signature of a transfer about to be sent, before sending, with what it sends and the fee it pays
 * (they sum to the line's due): conditional on the record still pending with the signature the caller saw, so of
 * two concurrent senders only one sends. False when lost.
 */
export const recordPayoutSignature = async (
  record: Pick<PayoutRecord, 'gameId' | 'day' | 'arcId' | 'prize'>,
  previous: string | undefined,
  sent: { signature: string; lastValidBlockHeight: number; send: bigint; fee: bigint },
  now: string,
): Promise<boolean> => {
  return recordPendingSignature(
    settlementTable(),
    settlementKeys.payout(record.gameId, record.day, record.arcId, record.prize),
    previous,
    sent,
    now,
    { send: sent.send.toString(), fee: sent.fee.toString() },
  );
};

/**
 * How completing a line went: `done`; `completed` when a concurrent run completed the record first; `unbooked`
 * when the recipient's carry is no longer the one the allocation consumed (another run or a merge changed it), so
 * what the line moved can't be booked as computed (the caller must not let that pass silently).
 */
export type Completion = 'done' | 'completed' | 'unbooked';

/**
 * Complete a line, in one transaction: the record leaves `pending` (confirmed with its signature, or carried),
 * the recipient's carry becomes what is still owed (conditional on the carry the allocation consumed; the game's
 * carries' version moves on), and the pool's books and the day's record a confirmed payout (`poolWrites`).
 */
export const completePayout = async (
  record: PayoutRecord,
  outcome:
    | { status: 'confirmed'; signature: string; usd: number; solUsdPrice: number }
    | { status: 'carried'; reason: string },
  carryAfter: bigint,
  poolWrites: TransactItem[],
  now: string,
): Promise<Completion> => {
  const TableName = settlementTable();
  const carriedIn = Number(record.carriedIn);
  const set =
    outcome.status === 'confirmed'
      ? { ':sig': outcome.signature, ':usd': outcome.usd, ':price': outcome.solUsdPrice }
      : { ':reason': outcome.reason, ':carry': carryAfter.toString(), ':zero': '0' };
  const failed = await transactNamed({
    record: {
      Update: {
        TableName,
        Key: settlementKeys.payout(record.gameId, record.day, record.arcId, record.prize),
        UpdateExpression:
          outcome.status === 'confirmed'
            ? 'SET #status = :done, signature = :sig, usd = :usd, solUsdPrice = :price, completedAt = :now'
            : 'SET #status = :done, carryReason = :reason, carryOut = :carry, send = :zero, fee = :zero, completedAt = :now',
        ConditionExpression: '#status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':done': outcome.status, ':pending': 'pending', ':now': now, ...set },
      },
    },
    carry: {
      Put: {
        TableName,
        Item: {
          ...settlementKeys.carry(record.gameId, record.arcId),
          lamports: Number(carryAfter),
          gameId: record.gameId,
          arcId: record.arcId,
          updatedAt: now,
          lastDay: record.day,
        },
        ConditionExpression: carriedIn === 0 ? 'attribute_not_exists(pk) OR lamports = :c' : 'lamports = :c',
        ExpressionAttributeValues: { ':c': carriedIn },
      },
    },
    version: carriesChanged(record.gameId, now),
    pool: poolWrites,
    event:
      outcome.status === 'confirmed'
        ? outboxItem('payout.sent', record.gameId, {
            day: record.day,
            arcId: record.arcId,
            lamports: record.send,
            signature: outcome.signature,
            ...(record.prize ? { tournament: record.prize } : {}),
          })
        : outboxItem('payout.carried', record.gameId, {
            day: record.day,
            arcId: record.arcId,
            lamports: carryAfter.toString(),
            reason: outcome.reason,
            ...(record.prize ? { tournament: record.prize } : {}),
          }),
  });
  if (!failed) return 'done';
  if (failed.record === 'ConditionalCheckFailed') return 'completed';
  if (failed.carry === 'ConditionalCheckFailed') return 'unbooked';
  // A conflict with a concurrent write (or a pool condition): nothing was written, the next run completes it.
  throw new Error(
    `Completing ${record.arcId}'s payout of ${record.gameId} ${record.day} was cancelled: ${JSON.stringify(failed)}`,
  );
};

/** Count a run that left the line unpaid (while it is pending); the count decides when it is parked. */
export const noteLineFailure = async (
  line: Pick<PayoutRecord, 'gameId' | 'day' | 'arcId' | 'prize'>,
  message: string,
  now: string,
): Promise<void> => {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: settlementTable(),
        Key: settlementKeys.payout(line.gameId, line.day, line.arcId, line.prize),
        UpdateExpression:
          'SET failures = if_not_exists(failures, :zero) + :one, lastError = :m, updatedAt = :now',
        ConditionExpression: '#status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':zero': 0,
          ':one': 1,
          ':m': message.slice(0, 500),
          ':now': now,
          ':pending': 'pending',
        },
      }),
    );
  } catch (error) {
    // Completed meanwhile (or never created): nothing to count.
    if (!isConditionFailure(error)) throw error;
  }
};
