// The players' multiplier slots and purchases in the RewardsTable (keys and access patterns in ./keys.ts; pools in
// ./pool-repository.ts). Every state change that guards money or the one-multiplier rule is a conditional write
// or a transaction.
import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import {
  dynamo,
  isConditionFailure,
  recordPendingSignature,
  transact,
  transactNamed,
} from '../adapters/dynamodb.js';
import { logger } from '../core/logger.js';
import { outboxItem } from '../outbox/index.js';
import { type AllowanceHold, allowanceHoldWrites, allowanceReleaseWrite } from './allowances/repository.js';
import { rewardsKeys, rewardsTable } from './keys.js';
import type { Purchase, Slot } from './model.js';
import { poolDayWrite } from './pool-days.js';

export type Item = Record<string, NativeAttributeValue>;

/** An item by its key (strongly consistent). */
export const getItem = async (key: { pk: string; sk: string }): Promise<Item | undefined> =>
  (await dynamo().send(new GetCommand({ TableName: rewardsTable(), Key: key, ConsistentRead: true }))).Item;

/** A player's multiplier slot in a game, if any. */
export const getSlot = async (gameId: string, arcId: string): Promise<Slot | undefined> =>
  (await getItem(rewardsKeys.slot(gameId, arcId))) as Slot | undefined;

/** A purchase by the player's idempotency key, if any. */
export const getPurchase = async (arcId: string, idempotencyKey: string): Promise<Purchase | undefined> =>
  (await getItem(rewardsKeys.purchase(arcId, idempotencyKey))) as Purchase | undefined;

/** A purchase by its item key (`MPURCHASE#…`), as slots reference it. */
export const getPurchaseByKey = async (pk: string): Promise<Purchase | undefined> =>
  (await getItem({ pk, sk: 'PURCHASE' })) as Purchase | undefined;

export type ReserveOutcome = 'reserved' | 'slotTaken' | 'keyTaken' | 'allowance';

const FAILED = 'ConditionalCheckFailed';

/**
 * Persist a purchase intent and reserve the player's multiplier slot for it, in one transaction: the slot must
 * be empty, hold an expired multiplier, or be held by `takeOver` (a purchase proved dead). A session purchase
 * also reserves its price against the player's allowance for the day in the same transaction (`allowance`: the
 * allowance changed, was revoked, or has no room left for the price).
 */
export const reserve = async (
  purchase: Purchase,
  now: string,
  options: { takeOver?: string | undefined; allowance?: AllowanceHold | undefined } = {},
): Promise<ReserveOutcome> => {
  const TableName = rewardsTable();
  const values: Item = { ':now': now, ':active': 'active' };
  let slotCondition = 'attribute_not_exists(pk) OR (#state = :active AND endsAt <= :now)';
  if (options.takeOver) {
    slotCondition += ' OR purchaseId = :dead';
    values[':dead'] = options.takeOver;
  }
  const hold = options.allowance
    ? allowanceHoldWrites(purchase.arcId, purchase.gameId, options.allowance, now)
    : undefined;
  const failed = await transactNamed({
    key: { Put: { TableName, Item: { ...purchase }, ConditionExpression: 'attribute_not_exists(pk)' } },
    slot: {
      Put: {
        TableName,
        Item: {
          ...rewardsKeys.slot(purchase.gameId, purchase.arcId),
          state: 'reserved',
          purchaseId: purchase.purchaseId,
          purchaseKey: purchase.pk,
          gameId: purchase.gameId,
          arcId: purchase.arcId,
          updatedAt: now,
        },
        ConditionExpression: slotCondition,
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: values,
      },
    },
    grant: hold?.grant,
    spend: hold?.spend,
  });
  if (!failed) return 'reserved';
  if (failed.key === FAILED) return 'keyTaken';
  if (failed.grant === FAILED || failed.spend === FAILED) return 'allowance';
  return 'slotTaken';
};

/**
 * Record the signature of a transfer about to be sent (before sending). Conditional on the purchase still
 * pending with the signature the caller saw, so of two concurrent senders only one may send; false when lost.
 */
export const recordSignature = async (
  purchase: Pick<Purchase, 'pk' | 'sk'>,
  previous: string | undefined,
  sent: { signature: string; lastValidBlockHeight: number },
  now: string,
): Promise<boolean> => {
  return recordPendingSignature(rewardsTable(), { pk: purchase.pk, sk: purchase.sk }, previous, sent, now);
};

/** The update that fails a pending purchase still as the caller saw it (same signature or none). */
const failUpdate = (
  purchase: Pick<Purchase, 'pk' | 'sk'>,
  seenSignature: string | undefined,
  reason: string,
  now: string,
) => ({
  TableName: rewardsTable(),
  Key: { pk: purchase.pk, sk: purchase.sk },
  UpdateExpression: 'SET #status = :failed, failureReason = :reason, updatedAt = :now',
  ConditionExpression: `#status = :pending AND ${seenSignature ? 'signature = :sig' : 'attribute_not_exists(signature)'}`,
  ExpressionAttributeNames: { '#status': 'status' },
  ExpressionAttributeValues: {
    ':failed': 'failed',
    ':reason': reason.slice(0, 500),
    ':now': now,
    ':pending': 'pending',
    ...(seenSignature ? { ':sig': seenSignature } : {}),
  },
});

/**
 * Fail the purchase and give its price back to the day's allowance, in one transaction (a session purchase).
 * False when the purchase moved on meanwhile.
 */
const failAndRelease = async (
  purchase: Pick<Purchase, 'pk' | 'sk' | 'gameId' | 'arcId' | 'purchaseId' | 'lamports'> & {
    allowanceDay: string;
  },
  seenSignature: string | undefined,
  reason: string,
  now: string,
): Promise<boolean> => {
  const failed = await transactNamed({
    purchase: { Update: failUpdate(purchase, seenSignature, reason, now) },
    release: allowanceReleaseWrite(
      purchase.arcId,
      purchase.gameId,
      purchase.allowanceDay,
      Number(purchase.lamports),
      now,
    ),
  });
  if (!failed) return true;
  if (failed.purchase === FAILED || failed.release !== FAILED) return false;
  // The day's spending no longer holds this price (never expected: nothing else subtracts from it). Failing the
  // purchase matters more than the allowance's room, which can only be smaller than it should be.
  logger.warn('failed purchase could not release its allowance', { purchaseId: purchase.purchaseId });
  return markFailedOnly(purchase, seenSignature, reason, now);
};

const markFailedOnly = async (
  purchase: Pick<Purchase, 'pk' | 'sk'>,
  seenSignature: string | undefined,
  reason: string,
  now: string,
): Promise<boolean> => {
  try {
    await dynamo().send(new UpdateCommand(failUpdate(purchase, seenSignature, reason, now)));
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/**
 * Mark a pending purchase failed (terminal) if it is still as the caller saw it (same signature or none), giving
 * a session purchase's price back to its day's allowance in the same transaction, then release its slot
 * reservation. False when the purchase moved on meanwhile (a signature was recorded).
 */
export const markFailed = async (
  purchase: Pick<Purchase, 'pk' | 'sk' | 'gameId' | 'arcId' | 'purchaseId' | 'lamports' | 'allowanceDay'>,
  seenSignature: string | undefined,
  reason: string,
  now: string,
): Promise<boolean> => {
  const { allowanceDay } = purchase;
  const failed = allowanceDay
    ? await failAndRelease({ ...purchase, allowanceDay }, seenSignature, reason, now)
    : await markFailedOnly(purchase, seenSignature, reason, now);
  if (!failed) return false;
  // Best effort: a slot still held by a failed purchase is taken over by the next purchase anyway.
  await dynamo()
    .send(
      new DeleteCommand({
        TableName: rewardsTable(),
        Key: rewardsKeys.slot(purchase.gameId, purchase.arcId),
        ConditionExpression: 'purchaseId = :id AND #state = :reserved',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':id': purchase.purchaseId, ':reserved': 'reserved' },
      }),
    )
    .catch((error: unknown) => {
      if (!isConditionFailure(error)) throw error;
    });
  return true;
};

/**
 * Activate a confirmed purchase, in one transaction: the purchase completes, its reserved slot becomes the
 * active multiplier, the pool's totals and the day's books grow and an inflow is recorded. False when another request activated it.
 */
export const activate = async (
  purchase: Purchase,
  signature: string,
  window: { startsAt: string; endsAt: string },
  now: string,
): Promise<boolean> => {
  const TableName = rewardsTable();
  try {
    await transact([
      {
        Update: {
          TableName,
          Key: { pk: purchase.pk, sk: purchase.sk },
          UpdateExpression:
            'SET #status = :completed, signature = :sig, startsAt = :s, endsAt = :e, completedAt = :now, updatedAt = :now',
          ConditionExpression: '#status = :pending',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':completed': 'completed',
            ':pending': 'pending',
            ':sig': signature,
            ':s': window.startsAt,
            ':e': window.endsAt,
            ':now': now,
          },
        },
      },
      {
        Put: {
          TableName,
          Item: {
            ...rewardsKeys.slot(purchase.gameId, purchase.arcId),
            state: 'active',
            purchaseId: purchase.purchaseId,
            purchaseKey: purchase.pk,
            gameId: purchase.gameId,
            arcId: purchase.arcId,
            tier: purchase.tier,
            multiplierBps: purchase.multiplierBps,
            startsAt: window.startsAt,
            endsAt: window.endsAt,
            updatedAt: now,
          },
          ConditionExpression: 'purchaseId = :id',
          ExpressionAttributeValues: { ':id': purchase.purchaseId },
        },
      },
      {
        Update: {
          TableName,
          Key: rewardsKeys.pool(purchase.gameId),
          UpdateExpression: 'ADD totalInflowLamports :l, purchases :one SET updatedAt = :now',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':l': Number(purchase.lamports), ':one': 1, ':now': now },
        },
      },
      poolDayWrite(purchase.gameId, now, {
        inflowLamports: BigInt(purchase.lamports),
        purchases: 1,
        salesLamports: BigInt(purchase.lamports),
        salesUsdCents: Math.round(purchase.usd * 100),
      }),
      {
        Put: {
          TableName,
          Item: {
            ...rewardsKeys.inflow(purchase.gameId, now, purchase.purchaseId),
            purchaseId: purchase.purchaseId,
            arcId: purchase.arcId,
            tier: purchase.tier,
            durationSeconds: purchase.durationSeconds,
            lamports: purchase.lamports,
            usd: purchase.usd,
            signature,
            fromWallet: purchase.walletAddress,
            at: now,
          },
        },
      },
      outboxItem('multiplier.purchased', purchase.gameId, {
        purchaseId: purchase.purchaseId,
        arcId: purchase.arcId,
        multiplier: purchase.multiplierBps / 10_000,
        lamports: String(purchase.lamports),
        signature,
      }),
    ]);
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};
