// The games' rewards pools in the RewardsTable: the pool item (its vault and totals) and the inflows that
// purchases recorded on it (activate in ./repository.ts).
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure } from '../adapters/dynamodb.js';
import { rewardsKeys, rewardsTable } from './keys.js';
import type { Pool } from './model.js';
import { getItem, type Item } from './repository.js';
import { newVault } from './vault.js';

const toPool = (item: Item): Pool => ({
  gameId: String(item.gameId),
  custodial: true,
  vaultAddress: String(item.vaultAddress),
  vaultSealedKey: String(item.vaultSealedKey),
  totalInflowLamports: BigInt(item.totalInflowLamports ?? 0).toString(),
  totalAllocatedLamports: BigInt(item.totalAllocatedLamports ?? 0).toString(),
  totalEarmarkedLamports: BigInt(item.totalEarmarkedLamports ?? 0).toString(),
  totalPaidLamports: BigInt(item.totalPaidLamports ?? 0).toString(),
  totalFeesLamports: BigInt(item.totalFeesLamports ?? 0).toString(),
  totalPaidUsdCents: Number(item.totalPaidUsdCents ?? 0),
  payouts: Number(item.payouts ?? 0),
  purchases: Number(item.purchases ?? 0),
  createdAt: String(item.createdAt),
});

/** A game's pool, if its vault was created. */
export const getPool = async (gameId: string): Promise<Pool | undefined> => {
  const item = await getItem(rewardsKeys.pool(gameId));
  return item ? toPool(item) : undefined;
};

/** A new pool: its vault, and books that start at zero. */
export type NewPool = Pick<Pool, 'gameId' | 'vaultAddress' | 'vaultSealedKey' | 'createdAt'>;

/** Create a game's pool once (its books at zero); a concurrent creator wins and its pool is returned. */
export const createPool = async (init: NewPool): Promise<Pool> => {
  const pool: Pool = {
    ...init,
    custodial: true,
    totalInflowLamports: '0',
    totalAllocatedLamports: '0',
    totalEarmarkedLamports: '0',
    totalPaidLamports: '0',
    totalFeesLamports: '0',
    totalPaidUsdCents: 0,
    payouts: 0,
    purchases: 0,
  };
  try {
    await dynamo().send(
      new PutCommand({
        TableName: rewardsTable(),
        // The totals are numbers in the table (ADD'ed by purchases and payouts), strings on the Pool.
        Item: {
          ...rewardsKeys.pool(pool.gameId),
          ...pool,
          totalInflowLamports: 0,
          totalAllocatedLamports: 0,
          totalEarmarkedLamports: 0,
          totalPaidLamports: 0,
          totalFeesLamports: 0,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return pool;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const existing = await getPool(pool.gameId);
    if (!existing) throw error;
    return existing;
  }
};

/** The game's pool, creating its custodial vault on first use. */
export const ensurePool = async (gameId: string, now: string) =>
  (await getPool(gameId)) ?? createPool({ gameId, ...(await newVault()), createdAt: now });

/** What tournament prize runs already took from a game's pool on a UTC day (lamports; its books of the day). */
export const prizesTakenOn = async (gameId: string, day: string): Promise<bigint> =>
  BigInt((await getItem(rewardsKeys.poolDay(gameId, day)))?.prizePoolLamports ?? 0);

/** The pool's most recent inflows, newest first (one Query). */
export const recentInflows = async (gameId: string, limit: number): Promise<Item[]> => {
  const { Items = [] } = await dynamo().send(
    new QueryCommand({
      TableName: rewardsTable(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: {
        ':pk': rewardsKeys.poolPartition(gameId),
        ':prefix': rewardsKeys.INFLOW_PREFIX,
      },
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  return Items;
};
