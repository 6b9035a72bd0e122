// A game's board of one UTC day as other domains read it (the multiplier quotes): its size, its top and one
// player's points, from the board's rank index (ranks/reads.ts: bounded reads at any board size).
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../../adapters/dynamodb.js';
import { ACTIVITY_SHARDS, playKeys } from '../keys.js';
import { getItem, playTable } from '../repository.js';
import type { Standing } from './board.js';
import { boardSize, readMeta, topOf } from './reads.js';

/** Players with points on a game's board of one UTC day (the score tree's counters, one batched read). */
export const countDayBoard = (gameId: string, day: string): Promise<number> =>
  boardSize({ kind: 'day', gameId, day });

/** The top `wanted` standings of a daily board, in leaderboard order. */
export const topOfDay = (gameId: string, day: string, wanted: number): Promise<Standing[]> =>
  topOf({ kind: 'day', gameId, day }, wanted);

/** A player's counted points on a game's board of one UTC day (0 when none). */
export const dayPoints = async (gameId: string, arcId: string, day: string): Promise<number> =>
  Number((await getItem(playKeys.day(gameId, arcId, day)))?.points ?? 0);

/**
 * Whether anyone has points on a game's board of one UTC day: a board that never had a score has no meta
 * item (one GetItem, the common case for a game not played that day); else its top entry (one query per index
 * shard: a board whose every player was invalidated to 0 keeps its meta item and has none).
 */
export const dayHasPlayers = async (gameId: string, day: string): Promise<boolean> => {
  const board = { kind: 'day' as const, gameId, day };
  return (await topOf(board, 1, await readMeta(board))).length > 0;
};

/**
 * The games whose board of a UTC day had a score (the byActiveDay index: its ACTIVITY_SHARDS partitions read at
 * once, page by page). A board whose every player was later invalidated stays listed: its day settles with no
 * players.
 */
export const gamesActiveOn = async (day: string): Promise<string[]> => {
  const shards = await Promise.all(
    Array.from({ length: ACTIVITY_SHARDS }, async (_, shard) => {
      const ids: string[] = [];
      let ExclusiveStartKey: Record<string, unknown> | undefined;
      do {
        const page = await dynamo().send(
          new QueryCommand({
            TableName: playTable(),
            IndexName: 'byActiveDay',
            KeyConditionExpression: 'activeDay = :day',
            ExpressionAttributeValues: { ':day': `${day}#${shard}` },
            ProjectionExpression: 'activeGame',
            ExclusiveStartKey,
          }),
        );
        for (const item of page.Items ?? []) ids.push(String(item.activeGame));
        ExclusiveStartKey = page.LastEvaluatedKey;
      } while (ExclusiveStartKey);
      return ids;
    }),
  );
  return shards.flat();
};

/** The day board as the multiplier quotes read it. */
export const dayBoard = {
  count: countDayBoard,
  top: topOfDay,
  pointsOf: dayPoints,
  hasPlayers: dayHasPlayers,
};
