import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { parseSetting } from '../core/config.js';
import { countCapacity } from './capacity.js';

let client: DynamoDBDocumentClient | undefined;

/**
 * Told of every call the client completed: its operation (`TransactWriteItems`, `PutItem`, …) and its input as the
 * caller wrote it (unmarshalled).
 */
export type AfterCall = (operation: string, input: Record<string, unknown>) => Promise<void>;
const afterCalls = new Set<AfterCall>();

/**
 * Run `hook` after each call the client completes, before its caller resumes (the outbox's enqueue after commit).
 * A hook must not throw: the call it follows has already happened.
 */
export const afterEachCall = (hook: AfterCall): void => {
  afterCalls.add(hook);
};

/**
 * The one DynamoDB document client of a container. The endpoint comes from AWS_ENDPOINT_URL_DYNAMODB when set.
 * With DYNAMODB_CAPACITY=count every call's consumed capacity is counted (lib/adapters/capacity.ts).
 */
export const dynamo = (): DynamoDBDocumentClient => {
  if (client) return client;
  const base = new DynamoDBClient({ maxAttempts: 4 });
  const counting = parseSetting('DYNAMODB_CAPACITY', process.env.DYNAMODB_CAPACITY);
  // DynamoDB Local misreports transactions: against a local endpoint the counter prices them itself.
  const local = Boolean(process.env.AWS_ENDPOINT_URL_DYNAMODB ?? process.env.AWS_ENDPOINT_URL);
  if (counting.ok && counting.value === 'count') countCapacity(base, { priceTransactions: local });
  client = DynamoDBDocumentClient.from(base, { marshallOptions: { removeUndefinedValues: true } });
  // At the initialize step the input is still the document client's (before marshalling) and the call, retries
  // included, has completed when `next` resolves.
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      for (const hook of afterCalls)
        await hook(
          String(context.commandName ?? '').replace(/Command$/, ''),
          args.input as Record<string, unknown>,
        );
      return result;
    },
    { step: 'initialize', name: 'afterEachCall' },
  );
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

/** A transaction's writes by name, in order: one write, several under one name, or none (absent or false). */
export type NamedWrites<N extends string> = {
  [K in N]?: TransactItem | readonly TransactItem[] | false | undefined;
};

/**
 * Run named writes as one transaction. Undefined when it committed; when it was cancelled, the reason of each
 * write that caused it, by name (`ConditionalCheckFailed`, `TransactionConflict`, …), so callers say which
 * condition failed instead of reading reasons by position.
 */
export const transactNamed = async <N extends string>(
  writes: NamedWrites<N>,
): Promise<Partial<Record<N, string>> | undefined> => {
  const names: N[] = [];
  const items: TransactItem[] = [];
  for (const [name, write] of Object.entries(writes) as Array<[N, NamedWrites<N>[N]]>) {
    if (!write) continue;
    for (const item of Array.isArray(write) ? write : [write]) {
      names.push(name);
      items.push(item as TransactItem);
    }
  }
  try {
    await transact(items);
    return undefined;
  } catch (error) {
    if ((error as { name?: string }).name !== 'TransactionCanceledException') throw error;
    const failed: Partial<Record<N, string>> = {};
    cancellationReasons(error).forEach((code, i) => {
      const name = names[i];
      if (name !== undefined && code !== 'None') failed[name] ??= code;
    });
    return failed;
  }
};

/**
 * Record the signature of a transfer about to be sent, before sending it (purchases, payouts): conditional on the
 * item still `pending` with the signature the caller saw (none, or `previous`, which moves to
 * `previousSignatures`), so of two concurrent senders only one sends. False when the caller lost.
 */
export const recordPendingSignature = async (
  table: string,
  key: Record<string, unknown>,
  previous: string | undefined,
  sent: { signature: string; lastValidBlockHeight: number },
  now: string,
  /** Attributes written with the signature (what this transaction pays and sends). */
  extra: Record<string, string> = {},
): Promise<boolean> => {
  const names = Object.keys(extra);
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: table,
        Key: key,
        UpdateExpression:
          'SET signature = :sig, lastValidBlockHeight = :h, updatedAt = :now, previousSignatures = list_append(if_not_exists(previousSignatures, :empty), :prev)' +
          names.map((_, i) => `, #x${i} = :x${i}`).join(''),
        ConditionExpression: `#status = :pending AND ${previous ? 'signature = :old' : 'attribute_not_exists(signature)'}`,
        ExpressionAttributeNames: {
          '#status': 'status',
          ...Object.fromEntries(names.map((name, i) => [`#x${i}`, name])),
        },
        ExpressionAttributeValues: {
          ':sig': sent.signature,
          ':h': sent.lastValidBlockHeight,
          ':now': now,
          ':empty': [],
          ':prev': previous ? [previous] : [],
          ':pending': 'pending',
          ...(previous ? { ':old': previous } : {}),
          ...Object.fromEntries(names.map((name, i) => [`:x${i}`, extra[name]])),
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};
