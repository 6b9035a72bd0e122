// Single-use marks in the ephemeral table (the HMAC scheme's spent signatures), beside the budget counters: both
// are short-lived keys that expire by TTL, owned here.
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure } from '../adapters/dynamodb.js';
import { settings } from '../core/config.js';

/**
 * Mark `key` as used until `expiresAt` (epoch seconds, the table's TTL): true the first time, false when it was
 * already marked. One conditional PutItem, so two concurrent uses never both get true.
 */
export const useOnce = async (key: string, expiresAt: number): Promise<boolean> => {
  try {
    await dynamo().send(
      new PutCommand({
        TableName: settings().EPHEMERAL_TABLE,
        Item: { pk: `ONCE#${key}`, expiresAt },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};
