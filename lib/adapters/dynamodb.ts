import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

let client: DynamoDBDocumentClient | undefined;

/** The one DynamoDB document client of a container. The endpoint comes from AWS_ENDPOINT_URL_DYNAMODB when set. */
export const dynamo = (): DynamoDBDocumentClient => {
  client ??= DynamoDBDocumentClient.from(new DynamoDBClient({ maxAttempts: 4 }), {
    marshallOptions: { removeUndefinedValues: true },
  });
  return client;
};

/** True for a ConditionalCheckFailed error, whether from a single write or a cancelled transaction. */
export const isConditionFailure = (error: unknown): boolean => {
  const name = (error as { name?: string } | undefined)?.name;
  return name === 'ConditionalCheckFailedException' || name === 'TransactionCanceledException';
};

/** The item a failed condition returned (ReturnValuesOnConditionCheckFailure: ALL_OLD), unmarshalled. */
export const conditionFailureItem = (error: unknown): Record<string, unknown> | undefined => {
  const item = (error as { Item?: Record<string, unknown> } | undefined)?.Item;
  if (!item) return undefined;
  const looksMarshalled = Object.values(item).every(
    (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  );
  return looksMarshalled ? unmarshall(item as Record<string, AttributeValue>) : item;
};

/** Why each item of a cancelled transaction failed (`ConditionalCheckFailed`, `None`, …). */
export const cancellationReasons = (error: unknown): string[] =>
  ((error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? []).map(
    (r) => r.Code ?? 'None',
  );

type TransactItems = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>;
/** One write of a transaction (Put, Update, Delete or ConditionCheck). */
export type TransactItem = TransactItems[number];

/** Run one transaction (TransactWriteItems): all its writes, or none. */
export const transact = async (items: TransactItem[]): Promise<void> => {
  await dynamo().send(new TransactWriteCommand({ TransactItems: items }));
};
