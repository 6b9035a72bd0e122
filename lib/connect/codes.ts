// Authorization codes in the EphemeralTable (keys.ts): stored by hash, spent once, kept a while after expiry so
// that a replay is recognised. Their own module: only the functions that issue or redeem codes reach the table.
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure, type TransactItem } from '../adapters/dynamodb.js';
import { connectKeys, ephemeralTable } from './keys.js';
import { CODE_RECORD_TTL_SECONDS, type CodeRecord } from './model.js';

/** The transaction item that stores a new code (written with its grant). */
export const codeWrite = (hash: string, record: CodeRecord): TransactItem => ({
  Put: {
    TableName: ephemeralTable(),
    Item: {
      ...connectKeys.code(hash),
      ...record,
      expiresAt: Math.ceil(record.expiresAtMs / 1000) + CODE_RECORD_TTL_SECONDS,
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

export const getCode = async (hash: string): Promise<CodeRecord | undefined> => {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: ephemeralTable(), Key: connectKeys.code(hash), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  const { pk: _pk, expiresAt: _ttl, ...record } = Item;
  return record as CodeRecord;
};

/** Spend a code: true the first time, false when it was already used (two redemptions never both win). */
export const useCode = async (hash: string, now: number): Promise<boolean> => {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: ephemeralTable(),
        Key: connectKeys.code(hash),
        UpdateExpression: 'SET used = :true, usedAtMs = :now',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(used)',
        ExpressionAttributeValues: { ':true': true, ':now': now },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};
