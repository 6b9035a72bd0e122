// A run's commitment record (keys.ts `commitment`): created once, its signature recorded before the transaction
// is sent (as a payout's), confirmed together with its fee on the pool's books, or closed as `skipped` when the
// pool could not pay it. Every change is conditional on the record as its writer saw it.
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  dynamo,
  isConditionFailure,
  recordPendingSignature,
  type TransactItem,
  transactNamed,
} from '../../adapters/dynamodb.js';
import { type PrizeRef, settlementKeys, settlementTable } from './keys.js';

/** The commitment of a run: `pending` (maybe sent: signature recorded), then `confirmed`, or `skipped`. */
export interface CommitmentRecord {
  gameId: string;
  day: string;
  prize?: PrizeRef;
  root: string;
  memo: string;
  status: 'pending' | 'confirmed' | 'skipped';
  signature?: string;
  lastValidBlockHeight?: number;
  previousSignatures?: string[];
  /** The fee the vault pays for it (lamports), recorded with the signature. */
  fee?: string;
  /** Why the run has no commitment transaction (`skipped`). */
  reason?: string;
  confirmedAt?: string;
  createdAt: string;
}

type RunKey = { gameId: string; day: string; prize?: PrizeRef | undefined };

const keyOf = (run: RunKey) => settlementKeys.commitment(run.gameId, run.day, run.prize);

/** The run's commitment record, if any. */
export const getCommitment = async (run: RunKey): Promise<CommitmentRecord | undefined> =>
  (
    await dynamo().send(
      new GetCommand({ TableName: settlementTable(), Key: keyOf(run), ConsistentRead: true }),
    )
  ).Item as CommitmentRecord | undefined;

/** The run's commitment record, created `pending` on first use (a concurrent creator's is returned). */
export const ensureCommitment = async (
  run: RunKey,
  commitment: { root: string; memo: string },
  now: string,
): Promise<CommitmentRecord> => {
  const prize = run.prize && { tournamentId: run.prize.tournamentId, periodId: run.prize.periodId };
  const record: CommitmentRecord = {
    gameId: run.gameId,
    day: run.day,
    ...(prize ? { prize } : {}),
    root: commitment.root,
    memo: commitment.memo,
    status: 'pending',
    createdAt: now,
  };
  try {
    await dynamo().send(
      new PutCommand({
        TableName: settlementTable(),
        Item: { ...keyOf(run), ...record },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return record;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const found = await getCommitment(run);
    if (!found) throw error;
    return found;
  }
};

/** Record the signature (and fee) of the commitment about to be sent, over the one the caller saw. False when lost. */
export const recordCommitmentSignature = (
  run: RunKey,
  previous: string | undefined,
  sent: { signature: string; lastValidBlockHeight: number; fee: bigint },
  now: string,
): Promise<boolean> =>
  recordPendingSignature(settlementTable(), keyOf(run), previous, sent, now, { fee: sent.fee.toString() });

/**
 * The commitment confirmed under `signature`, with its fee on the pool's books (`poolWrites`), in one transaction.
 * False when another run confirmed it first (nothing written).
 */
export const confirmCommitment = async (
  run: RunKey,
  signature: string,
  poolWrites: TransactItem[],
  now: string,
): Promise<boolean> => {
  const failed = await transactNamed({
    record: {
      Update: {
        TableName: settlementTable(),
        Key: keyOf(run),
        UpdateExpression: 'SET #status = :confirmed, signature = :sig, confirmedAt = :now',
        ConditionExpression: '#status = :pending AND signature = :sig',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':confirmed': 'confirmed',
          ':pending': 'pending',
          ':sig': signature,
          ':now': now,
        },
      },
    },
    pool: poolWrites,
  });
  if (!failed) return true;
  if (failed.record === 'ConditionalCheckFailed') return false;
  throw new Error(
    `Confirming the commitment of ${run.gameId} ${run.prize?.periodId ?? run.day}: ${JSON.stringify(failed)}`,
  );
};

/** Close a commitment that was never sent as `skipped`, with why. False when it was sent or closed meanwhile. */
export const skipCommitment = async (run: RunKey, reason: string, now: string): Promise<boolean> => {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: settlementTable(),
        Key: keyOf(run),
        UpdateExpression: 'SET #status = :skipped, reason = :reason, updatedAt = :now',
        ConditionExpression: '#status = :pending AND attribute_not_exists(signature)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':skipped': 'skipped',
          ':pending': 'pending',
          ':reason': reason,
          ':now': now,
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};
