// DynamoDB access of snapshots: summaries and observed claims in SnapshotsTable (keys.ts).
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { dynamo, isConditionFailure } from '../adapters/dynamodb.js';
import { settings } from '../core/config.js';
import { snapshotKeys } from './keys.js';

/** The current snapshot of a game coin. */
export const snapshotSummarySchema = z.object({
  coinMint: z.string(),
  airdropMint: z.string(),
  gameId: z.string(),
  merkleRoot: z.string(),
  holderCount: z.int(),
  totalAllocation: z.string(),
  pool: z.string(),
  slot: z.int(),
  createdAt: z.string(),
  version: z.int(),
  /** S3 key prefix of this version's objects. */
  prefix: z.string(),
});
export type SnapshotSummary = z.infer<typeof snapshotSummarySchema>;

/** An observed claim (first time its receipt was seen on chain). */
export const claimRecordSchema = z.object({
  coinMint: z.string(),
  wallet: z.string(),
  /** The wallet's n-th claim of the coin (0 = its first; receipts are numbered, docs/game-coin.md). */
  claimNumber: z._default(z.int(), 0),
  amount: z.nullable(z.string()),
  signature: z.nullable(z.string()),
  claimedAt: z.string(),
});
export type ClaimRecord = z.infer<typeof claimRecordSchema>;

const strip = <T extends Record<string, unknown>>({ pk: _pk, sk: _sk, ...rest }: T) => rest;

/** The current snapshot summary of a coin (strongly consistent). */
export const getSummary = async (coinMint: string): Promise<SnapshotSummary | undefined> => {
  const { Item } = await dynamo().send(
    new GetCommand({
      TableName: settings().SNAPSHOTS_TABLE,
      Key: snapshotKeys.summary(coinMint),
      ConsistentRead: true,
    }),
  );
  return Item ? snapshotSummarySchema.parse(strip(Item)) : undefined;
};

/**
 * Point a coin's summary at a new version, only if none exists or the stored one is older (lower version, not a
 * later slot). Returns false when a newer or concurrent snapshot won.
 */
export const putSummaryIfNewer = async (summary: SnapshotSummary): Promise<boolean> => {
  try {
    await dynamo().send(
      new PutCommand({
        TableName: settings().SNAPSHOTS_TABLE,
        Item: { ...snapshotKeys.summary(summary.coinMint), ...summary },
        ConditionExpression: 'attribute_not_exists(pk) OR (version < :v AND slot <= :slot)',
        ExpressionAttributeValues: { ':v': summary.version, ':slot': summary.slot },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/** The recorded claim n of a wallet, if already observed. */
export const getClaimRecord = async (
  coinMint: string,
  wallet: string,
  claimNumber = 0,
): Promise<ClaimRecord | undefined> => {
  const { Item } = await dynamo().send(
    new GetCommand({
      TableName: settings().SNAPSHOTS_TABLE,
      Key: snapshotKeys.claim(coinMint, wallet, claimNumber),
      ConsistentRead: true,
    }),
  );
  return Item ? claimRecordSchema.parse(strip(Item)) : undefined;
};

/** Every recorded claim of a wallet for a coin, by claim number. */
export const listClaimRecords = async (coinMint: string, wallet: string): Promise<ClaimRecord[]> => {
  const first = snapshotKeys.claim(coinMint, wallet, 0);
  const records: ClaimRecord[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: settings().SNAPSHOTS_TABLE,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
        ExpressionAttributeValues: { ':pk': first.pk, ':sk': first.sk },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const record = claimRecordSchema.parse(strip(item));
      // begins_with also matches a longer wallet address that starts with this one.
      if (record.wallet === wallet) records.push(record);
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return records.sort((a, b) => a.claimNumber - b.claimNumber);
};

/** Record a claim once; a concurrent first observation keeps the earlier record. Returns the stored one. */
export const recordClaim = async (claim: ClaimRecord): Promise<ClaimRecord> => {
  try {
    await dynamo().send(
      new PutCommand({
        TableName: settings().SNAPSHOTS_TABLE,
        Item: { ...snapshotKeys.claim(claim.coinMint, claim.wallet, claim.claimNumber), ...claim },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return claim;
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    return (await getClaimRecord(claim.coinMint, claim.wallet, claim.claimNumber)) ?? claim;
  }
};
