// The consumed-capacity counter of the DynamoDB adapter (lib/adapters/capacity.ts), against DynamoDB Local: a known
// put, a known transaction and a refused write report the units AWS's published rules give them, per table and
// per index (the put as DynamoDB Local reports it; the transaction and the refused write computed by the counter,
// since Local reports one item's units for a whole transaction and nothing for a failed request). Its own table (a GSI with every attribute projected), so the expected units do not depend on the
// platform's item shapes.
import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readCapacity, resetCapacity, totalUnits } from '../../lib/adapters/capacity.js';
import { dynamo, transact } from '../../lib/adapters/dynamodb.js';

// Read once, when the adapter builds its client (the first dynamo() call, below).
process.env.DYNAMODB_CAPACITY = 'count';

const table = `capacity-${randomUUID()}`;
/** A string attribute making an item of about `kb` KB (the keys add a few dozen bytes). */
const padding = (kb: number) => 'x'.repeat(Math.round(kb * 1024) - 100);

beforeAll(async () => {
  await dynamo().send(
    new CreateTableCommand({
      TableName: table,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'g', AttributeType: 'S' },
      ],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      GlobalSecondaryIndexes: [
        {
          IndexName: 'byG',
          KeySchema: [{ AttributeName: 'g', KeyType: 'HASH' }],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    }),
  );
});
afterAll(async () => {
  await dynamo().send(new DeleteTableCommand({ TableName: table }));
});
beforeEach(() => resetCapacity());

describe('the consumed-capacity counter of the DynamoDB adapter', () => {
  it('a 2.5 KB put with an index entry: 3 write units on the table and 3 on the index, one request', async () => {
    await dynamo().send(new PutCommand({ TableName: table, Item: { pk: 'a', g: 'one', pad: padding(2.5) } }));
    const count = readCapacity();
    expect(count.requests).toBe(1);
    expect(count.operations).toEqual({ PutItem: 1 });
    expect(count.units).toEqual({ [table]: { read: 0, write: 3 }, [`${table}/byG`]: { read: 0, write: 3 } });
    expect(count.computed.requests).toBe(0);
  });

  it('a transaction of three small writes, one of them indexed: 2 units each, the index entry 1 (not doubled)', async () => {
    await transact([
      { Put: { TableName: table, Item: { pk: 'b', g: 'two' } } },
      { Put: { TableName: table, Item: { pk: 'c' } } },
      {
        Update: {
          TableName: table,
          Key: { pk: 'd' },
          UpdateExpression: 'SET n = :n',
          ExpressionAttributeValues: { ':n': 1 },
        },
      },
    ]);
    const count = readCapacity();
    expect(count.requests).toBe(1);
    expect(count.operations).toEqual({ TransactWriteItems: 1 });
    expect(count.units).toEqual({ [table]: { read: 0, write: 6 }, [`${table}/byG`]: { read: 0, write: 1 } });
    expect(count.computed.requests).toBe(1);
  });

  it('a transaction that moves an item in the index and grows another past 1 KB', async () => {
    await dynamo().send(new PutCommand({ TableName: table, Item: { pk: 'm', g: 'old' } }));
    await dynamo().send(new PutCommand({ TableName: table, Item: { pk: 'n' } }));
    resetCapacity();
    await transact([
      // Moves in the index: the old entry removed, the new one written (1 + 1: a transaction doubles the table only).
      {
        Update: {
          TableName: table,
          Key: { pk: 'm' },
          UpdateExpression: 'SET g = :g',
          ExpressionAttributeValues: { ':g': 'new' },
        },
      },
      // Grows to ~1.5 KB, outside the index: 2 KB × 2.
      {
        Update: {
          TableName: table,
          Key: { pk: 'n' },
          UpdateExpression: 'SET #pad = :p',
          ExpressionAttributeNames: { '#pad': 'pad' },
          ExpressionAttributeValues: { ':p': padding(1.5) },
        },
      },
    ]);
    expect(readCapacity().units).toEqual({
      [table]: { read: 0, write: 6 },
      [`${table}/byG`]: { read: 0, write: 2 },
    });
  });

  it('reads: an eventually consistent get of a 6 KB item is 1 unit, a strong one 2, an index query its items', async () => {
    await dynamo().send(
      new PutCommand({ TableName: table, Item: { pk: 'big', g: 'three', pad: padding(6) } }),
    );
    resetCapacity();
    await dynamo().send(new GetCommand({ TableName: table, Key: { pk: 'big' } }));
    await dynamo().send(new GetCommand({ TableName: table, Key: { pk: 'big' }, ConsistentRead: true }));
    await dynamo().send(
      new QueryCommand({
        TableName: table,
        IndexName: 'byG',
        KeyConditionExpression: 'g = :g',
        ExpressionAttributeValues: { ':g': 'three' },
      }),
    );
    const count = readCapacity();
    expect(count.requests).toBe(3);
    expect(count.units[table]).toEqual({ read: 3, write: 0 });
    expect(count.units[`${table}/byG`]).toEqual({ read: 1, write: 0 });
    expect(totalUnits(count)).toEqual({ read: 4, write: 0 });
  });

  it('a put refused by its condition, which DynamoDB reports nothing for, is counted as computed', async () => {
    await dynamo().send(new PutCommand({ TableName: table, Item: { pk: 'e' } }));
    resetCapacity();
    await expect(
      dynamo().send(
        new PutCommand({
          TableName: table,
          Item: { pk: 'e', pad: padding(1.5) },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    ).rejects.toMatchObject({ name: 'ConditionalCheckFailedException' });
    const count = readCapacity();
    expect(count.requests).toBe(1);
    expect(count.units[table]).toEqual({ read: 0, write: 2 });
    expect(count.computed).toEqual({ requests: 1, read: 0, write: 2 });
  });

  it('leaves the caller’s command input as it was written', async () => {
    const input = { TableName: table, Item: { pk: 'f' } };
    await dynamo().send(new PutCommand(input));
    expect(input).toEqual({ TableName: table, Item: { pk: 'f' } });
  });
});
