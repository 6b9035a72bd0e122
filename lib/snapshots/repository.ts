// DynamoDB access of snapshots: summaries and observed claims in SnapshotsTable (keys.ts).
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  type ScanCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { dynamo, isConditionFailure, transact } from '../adapters/dynamodb.js';
import { settings } from '../core/config.js';
import { AppError } from '../core/errors.js';
import { getCoinGameIds } from '../games/index.js';
import { outboxItem } from '../outbox/index.js';
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
  /** Context slots of the first and last page of the holder read (absent on snapshots built before paging). */
  readSlots: z.optional(z.object({ first: z.int(), last: z.int() })),
  createdAt: z.string(),
  version: z.int(),
  /** S3 key prefix of this version's objects. */
  prefix: z.string(),
});
export type SnapshotSummary = z.infer<typeof snapshotSummarySchema>;

/**
 * A claim as the platform wrote it before the vault signed: what it pays, the exact transaction the vault signed
 * and until when it can land. `pending` until its receipt is seen used on chain (`landed`) or its lifetime has
 * passed without that (`expired`: the next build replaces it, with the same number and attempt + 1). A pending
 * claim a public build recorded is also replaced by the next build (same number and amount, attempt + 1): anybody
 * may have asked for it, so it must not hold the wallet's claim.
 */
export const claimRecordSchema = z.object({
  coinMint: z.string(),
  wallet: z.string(),
  /** The wallet's n-th claim of the coin (0 = its first). */
  claimNumber: z.int(),
  /** Builds of this number: an expired build is replaced by the next one, conditionally on this count. */
  attempt: z.int(),
  status: z.enum(['pending', 'landed', 'expired']),
  /**
   * Who recorded it: `build` (the public build-transactions, whoever called it: replaced by the next build while
   * pending) or `submit` (the participant's own authenticated submit: answered back until it lands or expires, so
   * its referrer stays the participant's). Records from before the field read as `build`.
   */
  origin: z._default(z.enum(['build', 'submit']), 'build'),
  /** Base units this claim pays. */
  amount: z.string(),
  allocated: z.string(),
  airdropAllocation: z.string(),
  emissionAllocation: z.string(),
  claimedBefore: z.string(),
  index: z.nullable(z.int()),
  merkleRoot: z.nullable(z.string()),
  snapshotVersion: z.nullable(z.int()),
  receiptAddress: z.string(),
  /** The transaction the vault signed (base64 wire form, the participant's slot empty). */
  transaction: z.string(),
  blockhash: z.string(),
  /**
   * No transaction the vault signed for this number can land after this block height: its own blockhash's last
   * valid height, or a replaced attempt's when that one is later (replaced attempts can still land until then).
   */
  lastValidBlockHeight: z.int(),
  /** Its signature, once known (the platform sent it, or the participant's signed copy was seen). */
  signature: z.nullable(z.string()),
  createdAt: z.string(),
  /** When it was seen landed. */
  claimedAt: z.nullable(z.string()),
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

const parseClaim = (item: Record<string, unknown>): ClaimRecord => {
  // Recorded by the release that read amounts from memos: not the platform's record until migrated.
  if (!('status' in item))
    throw new AppError(
      'CLAIM_MIGRATION_PENDING',
      `Claim ${String(item.claimNumber ?? 0)} of ${String(item.wallet)} predates the platform's claim records ` +
        'and is being verified; try again later',
    );
  return claimRecordSchema.parse(strip(item));
};

/** The claim n of a wallet, if any. */
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
  return Item ? parseClaim(Item) : undefined;
};

/** Every claim of a wallet for a coin, by claim number. */
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
      // begins_with also matches a longer wallet address that starts with this one.
      if (item.wallet === wallet) records.push(parseClaim(item));
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return records.sort((a, b) => a.claimNumber - b.claimNumber);
};

/** The condition under which a new attempt may take the place of the one read (`replaces`). */
const replaceCondition = (replaces: ClaimRecord) => {
  if (replaces.status === 'expired')
    return {
      ConditionExpression: '#status = :expired AND attempt = :attempt',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':expired': 'expired', ':attempt': replaces.attempt },
    };
  // Only a pending attempt a public build recorded and nobody sent through the platform: a submit's stays.
  if (replaces.status === 'pending' && replaces.origin === 'build' && replaces.signature === null)
    return {
      ConditionExpression:
        '#status = :pending AND attempt = :attempt AND (attribute_not_exists(origin) OR origin = :build) AND ' +
        '(attribute_not_exists(signature) OR attribute_type(signature, :null))',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':pending': 'pending',
        ':attempt': replaces.attempt,
        ':build': 'build',
        ':null': 'NULL',
      },
    };
  throw new Error(
    `Claim ${replaces.claimNumber} of ${replaces.wallet} (${replaces.status}) cannot be replaced`,
  );
};

/**
 * Write a new claim before its transaction leaves the platform: only when its number is free, or still held by
 * the attempt the caller read (`replaces`: an expired one, or a pending one a public build recorded). False when
 * another build wrote first.
 */
export const recordNewClaim = async (claim: ClaimRecord, replaces?: ClaimRecord): Promise<boolean> => {
  try {
    await dynamo().send(
      new PutCommand({
        TableName: settings().SNAPSHOTS_TABLE,
        Item: { ...snapshotKeys.claim(claim.coinMint, claim.wallet, claim.claimNumber), ...claim },
        ...(replaces ? replaceCondition(replaces) : { ConditionExpression: 'attribute_not_exists(pk)' }),
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/**
 * Move a pending claim to `landed` or `expired` (and record its signature when known), only while it is still
 * that pending attempt. Returns the stored record either way.
 */
export const settleClaim = async (
  claim: ClaimRecord,
  change: { status: 'landed' | 'expired'; at: string; signature?: string | null },
): Promise<ClaimRecord> => {
  const signature = change.signature ?? claim.signature;
  const update = {
    TableName: settings().SNAPSHOTS_TABLE,
    Key: snapshotKeys.claim(claim.coinMint, claim.wallet, claim.claimNumber),
    UpdateExpression: 'SET #status = :to, claimedAt = :at, signature = :signature',
    ConditionExpression: '#status = :pending AND attempt = :attempt',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':to': change.status,
      ':at': change.status === 'landed' ? change.at : null,
      ':signature': signature,
      ':pending': 'pending',
      ':attempt': claim.attempt,
    },
  };
  // A landing is a webhook event of the coin's game, recorded with it (an expiry is not).
  const gameId =
    change.status === 'landed' ? (await getCoinGameIds([claim.coinMint])).get(claim.coinMint) : undefined;
  try {
    if (gameId) {
      await transact([
        { Update: update },
        outboxItem('claim.landed', gameId, {
          wallet: claim.wallet,
          mint: claim.coinMint,
          amount: claim.amount,
          signature,
        }),
      ]);
    } else await dynamo().send(new UpdateCommand(update));
    return {
      ...claim,
      status: change.status,
      claimedAt: change.status === 'landed' ? change.at : null,
      signature,
    };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const stored = await getClaimRecord(claim.coinMint, claim.wallet, claim.claimNumber);
    if (!stored) throw new Error(`Claim ${claim.claimNumber} of ${claim.wallet} vanished`);
    return stored;
  }
};

/** Note the signature of a pending claim's transaction (the platform is about to send it). */
export const noteClaimSignature = async (claim: ClaimRecord, signature: string): Promise<void> => {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: settings().SNAPSHOTS_TABLE,
        Key: snapshotKeys.claim(claim.coinMint, claim.wallet, claim.claimNumber),
        UpdateExpression: 'SET signature = :signature',
        ConditionExpression: 'attempt = :attempt',
        ExpressionAttributeValues: { ':signature': signature, ':attempt': claim.attempt },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};

/** A claim item of the release that read amounts from memos, as stored (no `status`). */
export interface LegacyClaim {
  coinMint: string;
  wallet: string;
  claimNumber: number;
}

/** Every item a filtered Scan of the table finds (the migration's one-off reads). */
const scanAll = async (
  filter: Pick<
    ScanCommandInput,
    'FilterExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'
  >,
) => {
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new ScanCommand({ TableName: settings().SNAPSHOTS_TABLE, ...filter, ExclusiveStartKey }),
    );
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
};

/** Every legacy claim item. */
export const listLegacyClaims = async (): Promise<LegacyClaim[]> => {
  const items = await scanAll({
    FilterExpression: 'begins_with(sk, :claim) AND attribute_not_exists(#status)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':claim': 'CLAIM#' },
  });
  return items
    .map((item) => ({
      coinMint: String(item.coinMint),
      wallet: String(item.wallet),
      claimNumber: Number(item.claimNumber ?? 0),
    }))
    .sort(
      (a, b) =>
        a.coinMint.localeCompare(b.coinMint) ||
        a.wallet.localeCompare(b.wallet) ||
        a.claimNumber - b.claimNumber,
    );
};

/** Write a migrated claim over a legacy item or an empty key; false when a claim record is already there. */
export const putMigratedClaim = async (claim: ClaimRecord): Promise<boolean> => {
  try {
    await dynamo().send(
      new PutCommand({
        TableName: settings().SNAPSHOTS_TABLE,
        Item: { ...snapshotKeys.claim(claim.coinMint, claim.wallet, claim.claimNumber), ...claim },
        ConditionExpression: 'attribute_not_exists(#status)',
        ExpressionAttributeNames: { '#status': 'status' },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/** Delete a legacy claim item, only while it is still one. */
export const deleteLegacyClaim = async (claim: LegacyClaim): Promise<void> => {
  try {
    await dynamo().send(
      new DeleteCommand({
        TableName: settings().SNAPSHOTS_TABLE,
        Key: snapshotKeys.claim(claim.coinMint, claim.wallet, claim.claimNumber),
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(#status)',
        ExpressionAttributeNames: { '#status': 'status' },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};

/** The coins claims can exist for: every coin with a snapshot summary or an emission state. */
export const listClaimCoins = async (): Promise<string[]> => {
  const items = await scanAll({
    FilterExpression: 'sk = :summary OR sk = :state',
    ExpressionAttributeValues: { ':summary': 'SUMMARY', ':state': 'STATE' },
  });
  return [...new Set(items.flatMap((item) => (typeof item.coinMint === 'string' ? [item.coinMint] : [])))];
};
