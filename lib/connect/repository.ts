// Connect's items in the UsersTable (keys.ts): clients and grants. Codes are in codes.ts.
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { dynamo, isConditionFailure, type TransactItem, transact } from '../adapters/dynamodb.js';
import { connectKeys, usersTable } from './keys.js';
import { type Grant, MAX_CLIENTS_PER_GAME, type OAuthClient } from './model.js';

type Item = Record<string, NativeAttributeValue>;

const strip = <T>(item: Item): T => {
  const { pk: _pk, sk: _sk, expiresAt: _ttl, ...rest } = item;
  return rest as T;
};

export const getClient = async (clientId: string): Promise<OAuthClient | undefined> => {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: usersTable(), Key: connectKeys.client(clientId), ConsistentRead: true }),
  );
  return Item ? strip<OAuthClient>(Item) : undefined;
};

export const listClients = async (gameId: string): Promise<OAuthClient[]> => {
  const { Items = [] } = await dynamo().send(
    new QueryCommand({
      TableName: usersTable(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: {
        ':pk': connectKeys.gameClientsPartition(gameId),
        ':prefix': connectKeys.CLIENT_PREFIX,
      },
      ConsistentRead: true,
      Limit: MAX_CLIENTS_PER_GAME + 1,
    }),
  );
  return Items.map((item) => strip<OAuthClient>(item));
};

/** Both copies of a new client, in one transaction. */
export const putClient = (client: OAuthClient): Promise<void> =>
  transact([
    {
      Put: {
        TableName: usersTable(),
        Item: { ...connectKeys.client(client.clientId), ...client },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: usersTable(),
        Item: { ...connectKeys.gameClient(client.gameId, client.clientId), ...client },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ]);

/** Both copies of a client, in one transaction; false when the game has no such client. */
export const deleteClient = async (gameId: string, clientId: string): Promise<boolean> => {
  try {
    await transact([
      {
        Delete: {
          TableName: usersTable(),
          Key: connectKeys.gameClient(gameId, clientId),
          ConditionExpression: 'attribute_exists(pk)',
        },
      },
      { Delete: { TableName: usersTable(), Key: connectKeys.client(clientId) } },
    ]);
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

export const listGrants = async (arcId: string): Promise<Grant[]> => {
  const grants: Grant[] = [];
  let start: Item | undefined;
  do {
    const out = await dynamo().send(
      new QueryCommand({
        TableName: usersTable(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: {
          ':pk': connectKeys.userPartition(arcId),
          ':prefix': connectKeys.GRANT_PREFIX,
        },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    grants.push(...(out.Items ?? []).map((item) => strip<Grant>(item)));
    start = out.LastEvaluatedKey;
  } while (start);
  return grants;
};

/** A new grant (replacing the player's earlier one to the game), with the code it issues, and its limit. */
export const putGrantWithCode = (
  grant: Grant,
  codeWrite: TransactItem,
  limitWrite: TransactItem,
): Promise<void> =>
  transact([
    { Put: { TableName: usersTable(), Item: { ...connectKeys.grant(grant.arcId, grant.gameId), ...grant } } },
    codeWrite,
    limitWrite,
  ]);

/** Move the grant's current refresh token on from `gen`; false when another refresh got there first. */
export const rotateRefresh = async (grant: Grant, gen: number, now: string): Promise<boolean> => {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: usersTable(),
        Key: connectKeys.grant(grant.arcId, grant.gameId),
        UpdateExpression: 'SET refreshGen = :next, updatedAt = :now',
        ConditionExpression: 'grantId = :g AND #status = :active AND refreshGen = :gen',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':g': grant.grantId,
          ':active': 'active',
          ':gen': gen,
          ':next': gen + 1,
          ':now': now,
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/**
 * Revoke a grant (only the one named: a newer grant to the game is not touched) and remove its spending limit,
 * in one transaction; false when that grant is no longer the active one.
 */
export const revokeGrant = async (
  grant: Pick<Grant, 'arcId' | 'gameId' | 'grantId'>,
  reason: NonNullable<Grant['revokedReason']>,
  now: string,
  limitDelete: TransactItem,
): Promise<boolean> => {
  try {
    await transact([
      {
        Update: {
          TableName: usersTable(),
          Key: connectKeys.grant(grant.arcId, grant.gameId),
          UpdateExpression:
            'SET #status = :revoked, revokedAt = :now, revokedReason = :reason, updatedAt = :now',
          ConditionExpression: 'grantId = :g AND #status = :active',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':g': grant.grantId,
            ':active': 'active',
            ':revoked': 'revoked',
            ':reason': reason,
            ':now': now,
          },
        },
      },
      limitDelete,
    ]);
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};
