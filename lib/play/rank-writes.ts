// A total's move on its board as DynamoDB writes: the index attributes of the total's own update, and the score
// tree's and the tie trees' counter updates that go in the same transaction, so that the counters always equal
// the totals (docs/leaderboards.md §1). The writer conditions its update on the points it moved from.
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { ACTIVITY_SHARDS, type DayActivity, playIndexes } from './keys.js';
import {
  type BoardRef,
  boardAttributes,
  COUNTER_SK,
  counterKey,
  counterMoves,
  heightKey,
  type Standing,
  shardOf,
  TREE_SHARDS,
  tieKey,
  tieMoves,
  tieShardOf,
  topLevel,
} from './rank-index.js';
import { indexUpdate, playTable, type TransactItem } from './repository.js';

type Item = Record<string, NativeAttributeValue>;

/** One counter item's update: ADD each digit's delta (counters may go negative in one copy; reads sum copies). */
export const counterItem = (
  key: { pk: string; sk: string },
  digits: ReadonlyMap<number, number>,
): TransactItem => {
  const values: Item = {};
  const adds: string[] = [];
  for (const [digit, delta] of digits) {
    adds.push(`c${digit} :d${digit}`);
    values[`:d${digit}`] = delta;
  }
  return {
    Update: {
      TableName: playTable(),
      Key: key,
      UpdateExpression: `ADD ${adds.join(', ')}`,
      ExpressionAttributeValues: values,
    },
  };
};

/**
 * The key and deltas of a counter item made by `counterItem` (undefined for any other item): the ADDs of
 * several players to one counter item in one transaction are merged into one item (save-groups.ts).
 */
export const counterDeltas = (item: TransactItem) => {
  const update = item.Update;
  const key = update?.Key as { pk?: unknown; sk?: unknown } | undefined;
  if (!update || key?.sk !== COUNTER_SK || typeof key.pk !== 'string') return undefined;
  const digits = new Map<number, number>();
  for (const [name, value] of Object.entries(update.ExpressionAttributeValues ?? {}))
    digits.set(Number(name.slice(2)), Number(value));
  return { key: { pk: key.pk, sk: COUNTER_SK }, digits };
};

/** The counter updates of a total moving from `from` to `to` points on a board. */
export const counterWrites = (board: BoardRef, arcId: string, from: number, to: number): TransactItem[] => {
  const shard = shardOf(arcId, TREE_SHARDS);
  return counterMoves(from, to).map((move) => counterItem(counterKey(board, move, shard), move.digits));
};

/** The tie-tree counter updates of a standing moving from `from` to `to` on a board (in its copy, `tieShardOf`). */
export const tieWrites = (board: BoardRef, from: Standing | undefined, to: Standing): TransactItem[] => {
  const shard = tieShardOf(to.arcId);
  return tieMoves(board, from, to).map((move) =>
    counterItem(tieKey(board, move.points, move, shard), move.digits),
  );
};

/**
 * An update adding top levels to a board's height (`heightKey`): a set union, so it never fails. A day board's
 * height also carries its entry in the index of games with activity (`activity`, keys.ts byActiveDay).
 */
export const heightItem = (
  key: { pk: string; sk: string },
  levels: Iterable<number>,
  activity?: DayActivity,
): TransactItem => ({
  Update: {
    TableName: playTable(),
    Key: key,
    UpdateExpression: activity
      ? 'ADD levels :levels SET activeDay = :activeDay, activeGame = :activeGame'
      : 'ADD levels :levels',
    ExpressionAttributeValues: {
      ':levels': new Set(levels),
      ...(activity ? { ':activeDay': activity.activeDay, ':activeGame': activity.activeGame } : {}),
    },
  },
});

/** The index entry of a day board's height (none for the all-time board). */
const boardActivity = (board: BoardRef): DayActivity | undefined =>
  board.kind === 'day'
    ? playIndexes.activity(board.gameId, board.day, shardOf(board.gameId, ACTIVITY_SHARDS))
    : undefined;

/**
 * The key and levels of an item made by `heightItem` (undefined for any other item): the raises of several
 * players of one board in one transaction are merged into one item (save-groups.ts).
 */
export const heightLevels = (item: TransactItem) => {
  const update = item.Update;
  const key = update?.Key as { pk?: unknown; sk?: unknown } | undefined;
  const levels = update?.ExpressionAttributeValues?.[':levels'];
  if (key?.sk !== 'HEIGHT' || typeof key.pk !== 'string' || !(levels instanceof Set)) return undefined;
  const values = update?.ExpressionAttributeValues ?? {};
  const activity =
    typeof values[':activeDay'] === 'string' && typeof values[':activeGame'] === 'string'
      ? { activeDay: values[':activeDay'], activeGame: values[':activeGame'] }
      : undefined;
  return { key: { pk: key.pk, sk: 'HEIGHT' }, levels: [...levels].map(Number), activity };
};

/** The board's height raised to a new score's top level when that is above the height read (null: none yet). */
const raiseHeight = (board: BoardRef, height: number | null, points: number): TransactItem[] => {
  const level = topLevel(points);
  return points > 0 && (height === null || level > height)
    ? [heightItem(heightKey(board), [level], boardActivity(board))]
    : [];
};

/**
 * What a total's update adds for its board: the index attributes of its new standing (SET, or REMOVE when it
 * leaves the board), the condition that its points are still those moved from, the counter updates and the
 * board height's raise (`height`: as read, null when absent; a move down may pass the old score's top level).
 */
export const boardMove = (
  board: BoardRef,
  from: Standing | undefined,
  to: Standing,
  height: number | null,
) => {
  const index = indexUpdate(boardAttributes(board, to));
  const before = from?.points ?? 0;
  return {
    set: index.set,
    remove: index.remove,
    values: { ...index.values, ':fromPoints': before } as Item,
    condition:
      before === 0 ? '(attribute_not_exists(points) OR points = :fromPoints)' : 'points = :fromPoints',
    counters: [
      ...counterWrites(board, to.arcId, Math.max(0, before), Math.max(0, to.points)),
      ...tieWrites(board, from, to),
    ],
    raise: raiseHeight(board, height, to.points),
  };
};
