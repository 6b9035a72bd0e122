// Players' purchase allowances and their daily spending in the RewardsTable (keys in ./keys.ts). The spending is
// only ever changed inside the purchase's own transactions (reserve, fail), conditional on the day's room.
import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { dynamo, type TransactItem } from '../../adapters/dynamodb.js';
import { rewardsKeys, rewardsTable } from '../keys.js';
import type { Allowance } from '../model.js';

type Item = Record<string, NativeAttributeValue>;

const toAllowance = (item: Item): Allowance => ({
  arcId: String(item.arcId),
  gameId: String(item.gameId),
  lamportsPerDay: Number(item.lamportsPerDay),
  grantedAt: String(item.grantedAt),
  updatedAt: String(item.updatedAt),
});

/** A player's allowance to a game, if granted (strongly consistent). */
export const getAllowance = async (arcId: string, gameId: string): Promise<Allowance | undefined> => {
  const { Item } = await dynamo().send(
    new GetCommand({
      TableName: rewardsTable(),
      Key: rewardsKeys.allowance(arcId, gameId),
      ConsistentRead: true,
    }),
  );
  return Item ? toAllowance(Item) : undefined;
};

/** Grant or change an allowance; `grantedAt` is kept from the first grant. */
export const putAllowance = async (
  arcId: string,
  gameId: string,
  lamportsPerDay: number,
  now: string,
): Promise<Allowance> => {
  const { Attributes } = await dynamo().send(
    new UpdateCommand({
      TableName: rewardsTable(),
      Key: rewardsKeys.allowance(arcId, gameId),
      UpdateExpression:
        'SET arcId = :a, gameId = :g, lamportsPerDay = :l, grantedAt = if_not_exists(grantedAt, :now), updatedAt = :now',
      ExpressionAttributeValues: { ':a': arcId, ':g': gameId, ':l': lamportsPerDay, ':now': now },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return toAllowance(Attributes ?? {});
};

/** Revoke an allowance; true when there was one. The day's spending record stays. */
export const deleteAllowance = async (arcId: string, gameId: string): Promise<boolean> => {
  const { Attributes } = await dynamo().send(
    new DeleteCommand({
      TableName: rewardsTable(),
      Key: rewardsKeys.allowance(arcId, gameId),
      ReturnValues: 'ALL_OLD',
    }),
  );
  return Attributes !== undefined;
};

/** Every item of a Query on the player's allowance partition whose sort key begins with `prefix`. */
const queryPartition = async (arcId: string, prefix: string): Promise<Item[]> => {
  const items: Item[] = [];
  let start: Item | undefined;
  do {
    const out = await dynamo().send(
      new QueryCommand({
        TableName: rewardsTable(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': rewardsKeys.allowancePartition(arcId), ':prefix': prefix },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
};

/** A player's allowances, by game id. */
export const listAllowances = async (arcId: string): Promise<Allowance[]> =>
  (await queryPartition(arcId, rewardsKeys.ALLOWANCE_PREFIX)).map(toAllowance);

/** What a player's session purchases reserved on a UTC day, per game (lamports). */
export const spentOn = async (arcId: string, day: string): Promise<Map<string, number>> =>
  new Map(
    (await queryPartition(arcId, rewardsKeys.spentPrefix(day))).map((item) => [
      String(item.gameId),
      Number(item.spentLamports ?? 0),
    ]),
  );

/** What a player's session purchases reserved on a UTC day in one game (lamports). */
export const spentIn = async (arcId: string, gameId: string, day: string): Promise<number> => {
  const { Item } = await dynamo().send(
    new GetCommand({
      TableName: rewardsTable(),
      Key: rewardsKeys.allowanceSpend(arcId, gameId, day),
      ConsistentRead: true,
    }),
  );
  return Number(Item?.spentLamports ?? 0);
};

/** The allowance a purchase reserves against: the limit the caller read, the day, the price. */
export interface AllowanceHold {
  lamportsPerDay: number;
  day: string;
  lamports: number;
}

/**
 * Transaction items reserving a purchase's price against the player's allowance: the allowance must still be the
 * one the caller read (`grant`: not revoked, not changed), and the day's spending must leave room for the price
 * (`spend`). DynamoDB
 * conditions cannot add, so the room is passed as `spent ≤ limit − price`.
 */
export const allowanceHoldWrites = (
  arcId: string,
  gameId: string,
  hold: AllowanceHold,
  now: string,
): { grant: TransactItem; spend: TransactItem } => {
  const TableName = rewardsTable();
  return {
    grant: {
      ConditionCheck: {
        TableName,
        Key: rewardsKeys.allowance(arcId, gameId),
        ConditionExpression: 'lamportsPerDay = :limit',
        ExpressionAttributeValues: { ':limit': hold.lamportsPerDay },
      },
    },
    spend: {
      Update: {
        TableName,
        Key: rewardsKeys.allowanceSpend(arcId, gameId, hold.day),
        UpdateExpression:
          'ADD spentLamports :price SET arcId = :a, gameId = :g, #day = :day, updatedAt = :now',
        ConditionExpression: 'attribute_not_exists(spentLamports) OR spentLamports <= :room',
        ExpressionAttributeNames: { '#day': 'day' },
        ExpressionAttributeValues: {
          ':price': hold.lamports,
          ':room': hold.lamportsPerDay - hold.lamports,
          ':a': arcId,
          ':g': gameId,
          ':day': hold.day,
          ':now': now,
        },
      },
    },
  };
};

/** The transaction item giving a failed purchase's price back to the day's allowance (it never charged). */
export const allowanceReleaseWrite = (
  arcId: string,
  gameId: string,
  day: string,
  lamports: number,
  now: string,
): TransactItem => ({
  Update: {
    TableName: rewardsTable(),
    Key: rewardsKeys.allowanceSpend(arcId, gameId, day),
    UpdateExpression: 'ADD spentLamports :minus SET updatedAt = :now',
    ConditionExpression: 'spentLamports >= :price',
    ExpressionAttributeValues: { ':minus': -lamports, ':price': lamports, ':now': now },
  },
});

/**
 * The transaction item that sets a player's allowance to a game (a connect grant's spending limit, chosen on the
 * connect page), or removes it when the limit is none: written with the grant, so the two never disagree.
 */
export const allowanceSetWrite = (
  arcId: string,
  gameId: string,
  lamportsPerDay: number | null,
  now: string,
): TransactItem =>
  lamportsPerDay === null
    ? { Delete: { TableName: rewardsTable(), Key: rewardsKeys.allowance(arcId, gameId) } }
    : {
        Update: {
          TableName: rewardsTable(),
          Key: rewardsKeys.allowance(arcId, gameId),
          UpdateExpression:
            'SET arcId = :a, gameId = :g, lamportsPerDay = :l, grantedAt = if_not_exists(grantedAt, :now), updatedAt = :now',
          ExpressionAttributeValues: { ':a': arcId, ':g': gameId, ':l': lamportsPerDay, ':now': now },
        },
      };
