// Studios' deposits into tournament periods and the periods' prize funds, in the RewardsTable (keys.ts): a deposit
// is written before anything is sent; when its transfer lands it completes in one transaction with the period's
// fund and the pool's books (inflow and earmark, on its totals and its day), unless the period's prize run froze the fund first: then it is
// the pool's (inflow only). The prize run freezes the fund in its own intent's transaction (fundFreezeWrite).
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  dynamo,
  isConditionFailure,
  recordPendingSignature,
  type TransactItem,
  transact,
  transactNamed,
} from '../adapters/dynamodb.js';
import type { Inbound } from './inbound.js';
import { rewardsKeys, rewardsTable } from './keys.js';
import { poolDayWrite } from './pool-days.js';

/** A deposit as stored (lamports as decimal strings: they are money). */
export interface Deposit extends Inbound {
  pk: string;
  sk: string;
  depositId: string;
  idempotencyKey: string;
  gameId: string;
  tournamentId: string;
  periodId: string;
  status: 'pending' | 'completed' | 'failed';
  /** Where the landed lamports went: the period's fund, or the pool (the period's prize run had frozen it). */
  credited?: 'period' | 'pool';
  previousSignatures?: string[];
  failureReason?: string;
  createdAt: string;
  completedAt?: string;
}

/** A period's prize fund: deposited, and once its prize run froze it, what the pot used and what went back. */
export interface PeriodFund {
  depositedLamports: bigint;
  deposits: number;
  frozenAt: string | null;
  usedLamports: bigint;
  releasedLamports: bigint;
}

export interface FundRef {
  gameId: string;
  tournamentId: string;
  periodId: string;
}

const get = async (key: { pk: string; sk: string }) =>
  (await dynamo().send(new GetCommand({ TableName: rewardsTable(), Key: key, ConsistentRead: true }))).Item;

export const getDeposit = async (key: { pk: string; sk: string }) => (await get(key)) as Deposit | undefined;

/** Write a new deposit's intent; false when its key is taken (a concurrent request with the same key). */
export const putDeposit = async (d: Deposit): Promise<boolean> => {
  try {
    await dynamo().send(
      new PutCommand({ TableName: rewardsTable(), Item: d, ConditionExpression: 'attribute_not_exists(pk)' }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

export const recordDepositSignature = (
  d: Pick<Deposit, 'pk' | 'sk'>,
  previous: string | undefined,
  sent: { signature: string; lastValidBlockHeight: number },
  now: string,
) => recordPendingSignature(rewardsTable(), { pk: d.pk, sk: d.sk }, previous, sent, now);

/** Fail a pending deposit still as the caller saw it (same signature or none); false when it moved on. */
export const failDeposit = async (
  d: Pick<Deposit, 'pk' | 'sk'>,
  seenSignature: string | undefined,
  reason: string,
  now: string,
): Promise<boolean> => {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: rewardsTable(),
        Key: { pk: d.pk, sk: d.sk },
        UpdateExpression: 'SET #status = :failed, failureReason = :reason, updatedAt = :now',
        ConditionExpression: `#status = :pending AND ${seenSignature ? 'signature = :sig' : 'attribute_not_exists(signature)'}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':failed': 'failed',
          ':pending': 'pending',
          ':reason': reason.slice(0, 500),
          ':now': now,
          ...(seenSignature ? { ':sig': seenSignature } : {}),
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

const completeWrite = (d: Deposit, signature: string, credited: 'period' | 'pool', now: string) => ({
  Update: {
    TableName: rewardsTable(),
    Key: { pk: d.pk, sk: d.sk },
    UpdateExpression:
      'SET #status = :completed, signature = :sig, credited = :credited, completedAt = :now, updatedAt = :now',
    ConditionExpression: '#status = :pending',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':completed': 'completed',
      ':pending': 'pending',
      ':sig': signature,
      ':credited': credited,
      ':now': now,
    },
  },
});

const inflowWrite = (d: Deposit, earmarked: boolean, now: string): TransactItem => ({
  Update: {
    TableName: rewardsTable(),
    Key: rewardsKeys.pool(d.gameId),
    UpdateExpression: `ADD totalInflowLamports :l${earmarked ? ', totalEarmarkedLamports :l' : ''} SET updatedAt = :now`,
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeValues: { ':l': Number(d.lamports), ':now': now },
  },
});

/**
 * A landed deposit, once: completed with the period's fund and the pool's books (inflow, earmarked) in one
 * transaction, or, when the period's prize run froze the fund first, with the pool's inflow only. The credit it
 * got; undefined when another request completed it.
 */
export const completeDeposit = async (
  d: Deposit,
  signature: string,
  now: string,
): Promise<'period' | 'pool' | undefined> => {
  const failed = await transactNamed({
    deposit: completeWrite(d, signature, 'period', now),
    fund: {
      Update: {
        TableName: rewardsTable(),
        Key: rewardsKeys.periodFund(d.gameId, d.tournamentId, d.periodId),
        UpdateExpression: 'ADD depositedLamports :l, deposits :one SET updatedAt = :now',
        ConditionExpression: 'attribute_not_exists(frozenAt)',
        ExpressionAttributeValues: { ':l': Number(d.lamports), ':one': 1, ':now': now },
      },
    },
    inflow: inflowWrite(d, true, now),
    day: poolDayWrite(d.gameId, now, {
      inflowLamports: BigInt(d.lamports),
      earmarkedLamports: BigInt(d.lamports),
    }),
  });
  if (!failed) return 'period';
  if (failed.deposit === 'ConditionalCheckFailed' || failed.fund !== 'ConditionalCheckFailed')
    return undefined;
  try {
    await transact([
      completeWrite(d, signature, 'pool', now),
      inflowWrite(d, false, now),
      poolDayWrite(d.gameId, now, { inflowLamports: BigInt(d.lamports) }),
    ]);
    return 'pool';
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
};

/** A period's prize fund (zero before any deposit landed). */
export const periodFund = async (ref: FundRef): Promise<PeriodFund> => {
  const item = await get(rewardsKeys.periodFund(ref.gameId, ref.tournamentId, ref.periodId));
  return {
    depositedLamports: BigInt(item?.depositedLamports ?? 0),
    deposits: Number(item?.deposits ?? 0),
    frozenAt: typeof item?.frozenAt === 'string' ? item.frozenAt : null,
    usedLamports: BigInt(item?.usedLamports ?? 0),
    releasedLamports: BigInt(item?.releasedLamports ?? 0),
  };
};

/**
 * The prize run's freeze of a period's fund, in its intent's transaction: conditional on the deposited total the
 * pot was computed from and on no earlier freeze, so a deposit landing meanwhile is either counted or the pool's.
 */
export const fundFreezeWrite = (
  ref: FundRef,
  deposited: bigint,
  used: bigint,
  released: bigint,
  now: string,
): TransactItem => ({
  Update: {
    TableName: rewardsTable(),
    Key: rewardsKeys.periodFund(ref.gameId, ref.tournamentId, ref.periodId),
    UpdateExpression:
      'SET frozenAt = :now, usedLamports = :used, releasedLamports = :released, updatedAt = :now',
    ConditionExpression:
      'attribute_not_exists(frozenAt) AND (depositedLamports = :d OR (attribute_not_exists(depositedLamports) AND :d = :zero))',
    ExpressionAttributeValues: {
      ':now': now,
      ':used': Number(used),
      ':released': Number(released),
      ':d': Number(deposited),
      ':zero': 0,
    },
  },
});
