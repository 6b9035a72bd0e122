// The one read every use of a grant's access token makes (its own module: functions that only verify tokens get
// GetItem on the UsersTable, nothing more).
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../adapters/dynamodb.js';
import { AppError } from '../core/errors.js';
import { connectKeys, usersTable } from './keys.js';
import type { Grant } from './model.js';

/** A player's grant to a game (strongly consistent: a revocation is seen at once). */
export const getGrant = async (arcId: string, gameId: string): Promise<Grant | undefined> => {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: usersTable(), Key: connectKeys.grant(arcId, gameId), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  const { pk: _pk, sk: _sk, ...grant } = Item;
  return grant as Grant;
};

/** A grant's access token in use: the grant must still be the active one that issued it (read on every use). */
export const activeGrantOf = async (arcId: string, gameId: string, grantId: string): Promise<Grant> => {
  const grant = await getGrant(arcId, gameId);
  if (!grant || grant.grantId !== grantId || grant.status !== 'active')
    throw new AppError('UNAUTHORIZED', 'The grant of this access token was revoked or replaced');
  return grant;
};
