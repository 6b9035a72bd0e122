// Players' display names per game, and what a board entry shows of its player: the identifier the studio knows
// it by (lib/user known-as.ts) and its display name.
//
// A name lives in its own item of the play table, one per game and player: pk=NAME#<gameId>#<arcId>, sk=NAME
// (`displayName`, `setBy`: studio | player, `studioLock`: the studio's name, which the player cannot change). Apart
// from the totals' partition, so that nothing that reads or moves a player's totals meets it.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure } from '../adapters/dynamodb.js';
import { AppError } from '../core/errors.js';
import { type BoardAudience, studioIdentifiers } from '../user/index.js';
import { moderateDisplayName } from './display-name.js';
import { getItems, itemKey, playTable } from './repository.js';

/** The key of a player's display name in a game. */
export const nameKey = (gameId: string, arcId: string) => ({ pk: `NAME#${gameId}#${arcId}`, sk: 'NAME' });

export interface NameChange {
  /** The new name (moderated here), or null to remove it. */
  displayName: string | null;
  setBy: 'studio' | 'player';
  /** Studio only: whether the player may change the name afterwards (false unlocks it). */
  locked?: boolean | undefined;
}

/**
 * Set or remove a player's name in a game: one UpdateItem. A player's change is conditional on the name not
 * being locked by the studio (403 DISPLAY_NAME_LOCKED), so a studio's moderation cannot be raced away.
 */
export const setDisplayName = async (
  gameId: string,
  arcId: string,
  change: NameChange,
  now = new Date(),
): Promise<{ displayName: string | null; locked: boolean }> => {
  const displayName = change.displayName === null ? null : moderateDisplayName(change.displayName);
  const locked = change.setBy === 'studio' ? change.locked === true : undefined;
  const set = ['setBy = :by', 'updatedAt = :now', ...(displayName === null ? [] : ['displayName = :name'])];
  if (locked !== undefined) set.push('studioLock = :locked');
  try {
    const out = await dynamo().send(
      new UpdateCommand({
        TableName: playTable(),
        Key: nameKey(gameId, arcId),
        UpdateExpression: `SET ${set.join(', ')}${displayName === null ? ' REMOVE displayName' : ''}`,
        ...(change.setBy === 'player'
          ? { ConditionExpression: 'attribute_not_exists(studioLock) OR studioLock = :no' }
          : {}),
        ExpressionAttributeValues: {
          ':by': change.setBy,
          ':now': now.toISOString(),
          ...(displayName === null ? {} : { ':name': displayName }),
          ...(locked === undefined ? {} : { ':locked': locked }),
          ...(change.setBy === 'player' ? { ':no': false } : {}),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return { displayName, locked: out.Attributes?.studioLock === true };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    throw new AppError(
      'DISPLAY_NAME_LOCKED',
      'The studio set your display name in this game and locked it: it cannot be changed here',
    );
  }
};

/** A board entry as ranked: position, player and points. */
export interface RankedEntry {
  rank: number;
  arcId: string;
  points: number;
}

/** A board entry as shown: with the player's studio identifier and display name (null when none). */
export type LabelledEntry = RankedEntry & { playerId: string | null; displayName: string | null };

/**
 * Label entries of one game's board, in one wave whatever the board's size: a BatchGetItem of their names (play
 * table) and one of their profiles (users table) at once, per 100 players (a page holds ≤ 100; a page with a
 * player and its neighbours up to 105, a second request per table in the same wave).
 */
export const labelEntries = async <E extends RankedEntry>(
  gameId: string,
  groups: E[][],
  audience: BoardAudience,
): Promise<Array<Array<E & LabelledEntry>>> => {
  const arcIds = [...new Set(groups.flat().map((e) => e.arcId))];
  if (arcIds.length === 0) return groups.map(() => []);
  const [names, identifiers] = await Promise.all([
    // Eventually consistent, like the board's index the entries come from (half the read units).
    getItems(
      arcIds.map((arcId) => nameKey(gameId, arcId)),
      false,
    ),
    studioIdentifiers(arcIds, gameId, audience),
  ]);
  const nameOf = (arcId: string) => {
    const name = names.get(itemKey(nameKey(gameId, arcId)))?.displayName;
    return typeof name === 'string' ? name : null;
  };
  return groups.map((entries) =>
    entries.map((e) => ({ ...e, playerId: identifiers.get(e.arcId) ?? null, displayName: nameOf(e.arcId) })),
  );
};
