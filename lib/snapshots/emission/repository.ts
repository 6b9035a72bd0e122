// DynamoDB access of game coin emission (SnapshotsTable, keys.ts): the coin's emission state, each settled day
// (its frozen intent, then settled), the chunk markers that apply a day's wallet allocations once, and each
// wallet's cumulative emission allocation per coin.
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { dynamo, isConditionFailure, transact, transactNamed } from '../../adapters/dynamodb.js';
import { settings } from '../../core/config.js';
import type { WalletShare } from '../emission-math.js';
import { snapshotKeys } from '../keys.js';

const table = () => settings().SNAPSHOTS_TABLE;
const strip = <T extends Record<string, unknown>>({ pk: _pk, sk: _sk, ...rest }: T) => rest;

/** Base units as stored: DynamoDB numbers (the emission pool, 1.069 × 10^14, is far below 2^53). */
const units = z.pipe(
  z.number(),
  z.transform((n) => BigInt(n)),
);

/** A coin's emission so far. */
export const emissionStateSchema = z.object({
  coinMint: z.string(),
  gameId: z.string(),
  emitted: units,
  lastSettledDay: z._default(z.nullable(z.string()), null),
});
export type EmissionState = z.infer<typeof emissionStateSchema>;

/** One emission day: written as an intent (pending) before any allocation, then marked settled. */
export const emissionDaySchema = z.object({
  coinMint: z.string(),
  gameId: z.string(),
  day: z.string(),
  index: z.int(),
  amount: units,
  wallets: z.int(),
  chunks: z.int(),
  digest: z.string(),
  status: z.enum(['pending', 'settled']),
  createdAt: z.string(),
  settledAt: z._default(z.nullable(z.string()), null),
});
export type EmissionDay = z.infer<typeof emissionDaySchema>;

/** A wallet's cumulative emission allocation of a coin. */
export const walletEmissionSchema = z.object({
  wallet: z.string(),
  coinMint: z.string(),
  gameId: z.string(),
  emission: units,
  days: z.int(),
});
export type WalletEmission = z.infer<typeof walletEmissionSchema>;

const get = async (Key: Record<string, string>) =>
  (await dynamo().send(new GetCommand({ TableName: table(), Key, ConsistentRead: true }))).Item;

/**
 * Every emission day of a coin in day order (a coin emits over at most 30 days). The days share their partition
 * with their chunk markers (`DAY#<day>#CHUNK#<n>`): those are skipped, reading on while the Query has pages.
 */
export const listEmissionDays = async (coinMint: string): Promise<EmissionDay[]> => {
  const days: EmissionDay[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :day)',
        ExpressionAttributeValues: { ':pk': snapshotKeys.emissionState(coinMint).pk, ':day': 'DAY#' },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? [])
      if (/^DAY#\d{4}-\d{2}-\d{2}$/.test(String(item.sk))) days.push(emissionDaySchema.parse(strip(item)));
    start = page.LastEvaluatedKey;
  } while (start);
  return days;
};

/** The coin's emission state, undefined before its first settled day. */
export const getEmissionState = async (coinMint: string): Promise<EmissionState | undefined> => {
  const item = await get(snapshotKeys.emissionState(coinMint));
  return item ? emissionStateSchema.parse(strip(item)) : undefined;
};

/** A coin's emission day record. */
export const getEmissionDay = async (coinMint: string, day: string): Promise<EmissionDay | undefined> => {
  const item = await get(snapshotKeys.emissionDay(coinMint, day));
  return item ? emissionDaySchema.parse(strip(item)) : undefined;
};

/**
 * Freeze a day's emission: the day's intent (created once) and the coin's emitted total (only if it is still
 * what the caller read), in one transaction. 'exists' when the day was already frozen, 'raced' when another day
 * moved the total first (read again and retry).
 */
export const freezeEmissionDay = async (
  record: EmissionDay,
  emittedBefore: bigint | undefined,
): Promise<'frozen' | 'exists' | 'raced'> => {
  const { amount, ...rest } = record;
  const after = Number((emittedBefore ?? 0n) + amount);
  const failed = await transactNamed({
    day: {
      Put: {
        TableName: table(),
        Item: { ...snapshotKeys.emissionDay(record.coinMint, record.day), ...rest, amount: Number(amount) },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    total: {
      Update: {
        TableName: table(),
        Key: snapshotKeys.emissionState(record.coinMint),
        UpdateExpression: 'SET coinMint = :c, gameId = :g, emitted = :after',
        ConditionExpression: emittedBefore === undefined ? 'attribute_not_exists(pk)' : 'emitted = :before',
        ExpressionAttributeValues: {
          ':c': record.coinMint,
          ':g': record.gameId,
          ':after': after,
          ...(emittedBefore === undefined ? {} : { ':before': Number(emittedBefore) }),
        },
      },
    },
  });
  if (!failed) return 'frozen';
  return failed.day === 'ConditionalCheckFailed' ? 'exists' : 'raced';
};

/**
 * Apply one chunk (≤ 99 wallets) of a frozen day: the chunk's marker (created once) and each wallet's ADD, in one
 * transaction, so a chunk is applied exactly once whatever retries. Returns false when it was applied before.
 */
export const applyEmissionChunk = async (
  day: Pick<EmissionDay, 'coinMint' | 'gameId' | 'day'>,
  chunk: number,
  shares: ReadonlyArray<WalletShare>,
): Promise<boolean> => {
  const writes = {
    marker: {
      Put: {
        TableName: table(),
        Item: { ...snapshotKeys.emissionChunk(day.coinMint, day.day, chunk), wallets: shares.length },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    wallets: shares.map(({ wallet, amount }) => ({
      Update: {
        TableName: table(),
        Key: snapshotKeys.walletEmission(wallet, day.coinMint),
        UpdateExpression: 'SET wallet = :w, coinMint = :c, gameId = :g ADD emission :amount, #days :one',
        ExpressionAttributeNames: { '#days': 'days' },
        ExpressionAttributeValues: {
          ':w': wallet,
          ':c': day.coinMint,
          ':g': day.gameId,
          ':amount': Number(amount),
          ':one': 1,
        },
      },
    })),
  };
  for (let attempt = 0; ; attempt++) {
    const failed = await transactNamed(writes);
    if (!failed) return true;
    if (failed.marker === 'ConditionalCheckFailed') return false;
    // A conflict with a concurrent transaction on one of these items: nothing was applied, try again.
    const conflict = Object.values(failed).includes('TransactionConflict');
    if (!conflict || attempt >= 8)
      throw new Error(
        `Applying chunk ${chunk} of ${day.coinMint} ${day.day} was cancelled: ${JSON.stringify(failed)}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 20 * 2 ** attempt * Math.random()));
  }
};

/** Mark a frozen day settled (after all its chunks) and move the coin's last settled day forward. */
export const markEmissionDaySettled = async (day: EmissionDay, settledAt: string): Promise<void> => {
  await transact([
    {
      Update: {
        TableName: table(),
        Key: snapshotKeys.emissionDay(day.coinMint, day.day),
        UpdateExpression: 'SET #status = :settled, settledAt = if_not_exists(settledAt, :at)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':settled': 'settled', ':at': settledAt },
      },
    },
  ]);
  // Best effort and monotone: the status endpoint's next settlement reads it.
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: snapshotKeys.emissionState(day.coinMint),
        UpdateExpression: 'SET lastSettledDay = :d',
        ConditionExpression: 'attribute_not_exists(lastSettledDay) OR lastSettledDay < :d',
        ExpressionAttributeValues: { ':d': day.day },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};

/** A wallet's emission allocation of one coin. */
export const getWalletEmission = async (
  wallet: string,
  coinMint: string,
): Promise<WalletEmission | undefined> => {
  const item = await get(snapshotKeys.walletEmission(wallet, coinMint));
  return item ? walletEmissionSchema.parse(strip(item)) : undefined;
};

/** Every coin a wallet has an emission allocation of. */
export const listWalletEmissions = async (wallet: string): Promise<WalletEmission[]> => {
  const out: WalletEmission[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': snapshotKeys.walletEmission(wallet, '').pk },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) out.push(walletEmissionSchema.parse(strip(item)));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return out;
};
