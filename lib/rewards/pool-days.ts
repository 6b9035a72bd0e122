// A pool's books per UTC day: the transaction item that books a movement of the pool's totals on the day it
// happens. Every writer of the pool item's totals (a purchase's activation, a settlement's allocation, a payout's
// confirmation, a tournament deposit's landing) adds this item to the same transaction, so the days always sum to
// the pool item's totals.
import type { TransactItem } from '../adapters/dynamodb.js';
import { rewardsKeys, rewardsTable } from './keys.js';

/** What one transaction moves on the pool's books (lamports; counts). */
export interface PoolDayMoves {
  inflowLamports?: bigint;
  purchases?: number;
  allocatedLamports?: bigint;
  paidLamports?: bigint;
  feesLamports?: bigint;
  payouts?: number;
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
