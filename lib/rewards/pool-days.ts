// A pool's books per UTC day: the transaction item that books a movement of the pool's totals on the day it
// happens. Every writer of the pool item's totals (a purchase's activation, a settlement's allocation, a payout's
// confirmation, a tournament deposit's landing) adds this item to the same transaction, so the days always sum to
// the pool item's totals.
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { dynamo, type TransactItem } from '../adapters/dynamodb.js';
import { rewardsKeys, rewardsTable } from './keys.js';

/** What one transaction moves on the pool's books (lamports; counts). */
export interface PoolDayMoves {
  inflowLamports?: bigint;
  purchases?: number;
  /** The multiplier purchases' part of the inflow (deposits are the rest), and their USD at sale (cents). */
  salesLamports?: bigint;
  salesUsdCents?: number;
  allocatedLamports?: bigint;
  paidLamports?: bigint;
  feesLamports?: bigint;
  payouts?: number;
  /** Of those, the payouts to a player (a line with the player role; a creator's share alone is not one). */
  playerPayouts?: number;
  /** The payouts' USD at payout (cents). */
  paidUsdCents?: number;
  /** Deposits held for tournament periods: + when one lands, − when a period's prize run ends its fund. */
  earmarkedLamports?: bigint;
  /** What tournament prize runs took from the pool that day (their allocation less the periods' own funds). */
  prizePoolLamports?: bigint;
}

/** The UTC day of an ISO instant. */
export const utcDay = (iso: string) => iso.slice(0, 10);

/**
 * ADD the moves to the pool's item for the UTC day of `at` (created by the first movement of the day).
 * `prizesAtMost`: conditional on what prize runs took that day before this ADD (the daily bound less this take).
 */
export const poolDayWrite = (
  gameId: string,
  at: string,
  moves: PoolDayMoves,
  prizesAtMost?: bigint,
): TransactItem => {
  const day = utcDay(at);
  const entries = Object.entries(moves).filter(([, v]) => v !== undefined);
  if (entries.length === 0) throw new Error('poolDayWrite: nothing moves');
  const names = Object.fromEntries(entries.map(([k], i) => [`#m${i}`, k]));
  const values = Object.fromEntries(entries.map(([, v], i) => [`:m${i}`, Number(v)]));
  return {
    Update: {
      TableName: rewardsTable(),
      Key: rewardsKeys.poolDay(gameId, day),
      UpdateExpression: `ADD ${entries.map((_, i) => `#m${i} :m${i}`).join(', ')} SET gameId = :g, #day = :d, updatedAt = :at`,
      ExpressionAttributeNames: { ...names, '#day': 'day' },
      ExpressionAttributeValues: {
        ...values,
        ':g': gameId,
        ':d': day,
        ':at': at,
        ...(prizesAtMost === undefined ? {} : { ':prizesAtMost': Number(prizesAtMost) }),
      },
      ...(prizesAtMost === undefined
        ? {}
        : {
            ConditionExpression:
              'attribute_not_exists(prizePoolLamports) OR prizePoolLamports <= :prizesAtMost',
          }),
    },
  };
};

const big = (value: unknown) => BigInt(typeof value === 'number' || typeof value === 'string' ? value : 0);

/**
 * A game's day books between two UTC days (both included), oldest first: the sales and payouts of each day the
 * books moved on (GET /games/insights/{gameId}). One Query of the pool's partition, its pages followed.
 */
export const poolDaysBetween = async (gameId: string, from: string, to: string) => {
  const items: Array<Record<string, NativeAttributeValue>> = [];
  let start: Record<string, NativeAttributeValue> | undefined;
  do {
    const out = await dynamo().send(
      new QueryCommand({
        TableName: rewardsTable(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': rewardsKeys.poolPartition(gameId),
          ':from': rewardsKeys.poolDay(gameId, from).sk,
          ':to': rewardsKeys.poolDay(gameId, to).sk,
        },
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items.map((item) => ({
    day: String(item.day),
    purchases: Number(item.purchases ?? 0),
    salesLamports: big(item.salesLamports),
    salesUsdCents: Number(item.salesUsdCents ?? 0),
    paidLamports: big(item.paidLamports),
    paidUsdCents: Number(item.paidUsdCents ?? 0),
    payouts: Number(item.payouts ?? 0),
    playerPayouts: Number(item.playerPayouts ?? 0),
  }));
};
