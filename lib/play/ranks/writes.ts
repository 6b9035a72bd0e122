// A total's move on its board as DynamoDB writes: the index attributes of the total's own update, and the score
// tree's counter updates and the board's meta item that go in the same transaction, so that the counters always
// equal the totals (docs/leaderboards.md §1). The writer conditions its update on the points it moved from.
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { ACTIVITY_SHARDS, type DayActivity, playIndexes } from '../keys.js';
import { indexUpdate, playTable, type TransactItem } from '../repository.js';
import {
  type BoardMeta,
  type BoardRef,
  boardAttributes,
  COUNTER_SK,
  counterCopies,
  counterKey,
  counterMoves,
  MAX_WIDTH,
  metaKey,
  type Standing,
  shardOf,
  topLevel,
  widthFor,
} from './board.js';

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
 * several players to one counter item in one transaction are merged into one item (saves/groups.ts).
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

/**
 * A counter item moved to another copy of its node (any other item unchanged). A count is the sum over the copies,
 * so a move's ADDs may go to any copy a reader reads (below `counterCopies`): a batch save puts each of its
 * transactions' counter ADDs in a copy of its own (saves/save.ts).
 */
export const counterInCopy = (item: TransactItem, copy: number): TransactItem => {
  const deltas = counterDeltas(item);
  if (!deltas) return item;
  const pk = `${deltas.key.pk.slice(0, deltas.key.pk.lastIndexOf('#'))}#${copy}`;
  return counterItem({ pk, sk: deltas.key.sk }, deltas.digits);
};

/** The counter updates, in one shard, of a total moving from `from` to `to` points on a board. */
export const counterWrites = (board: BoardRef, shard: number, from: number, to: number): TransactItem[] =>
  counterMoves(from, to).map((move) => counterItem(counterKey(board, move, shard), move.digits));

/** What a write adds to a board's meta item (`metaKey`): sets joined, the players' estimate summed. */
export interface MetaAdds {
  levels?: number[] | undefined;
  widths?: number[] | undefined;
  dayWidths?: number[] | undefined;
  players?: number | undefined;
}

const META_SETS = ['levels', 'widths', 'dayWidths'] as const;

/**
 * An update of a board's meta item: set unions and a sum, so it never fails and several players' writes of one
 * transaction merge into one item. A day board's meta item also carries its entry in the index of games with
 * activity (`activity`, keys.ts byActiveDay), set with its first level.
 */
export const metaItem = (
  key: { pk: string; sk: string },
  adds: MetaAdds,
  activity?: DayActivity,
): TransactItem => {
  const parts: string[] = [];
  const values: Item = {};
  for (const name of META_SETS) {
    const set = adds[name];
    if (set && set.length > 0) {
      parts.push(`${name} :${name}`);
      values[`:${name}`] = new Set(set);
    }
  }
  if (adds.players) {
    parts.push('players :players');
    values[':players'] = adds.players;
  }
  const sets = activity ? ' SET activeDay = :activeDay, activeGame = :activeGame' : '';
  if (activity)
    Object.assign(values, { ':activeDay': activity.activeDay, ':activeGame': activity.activeGame });
  return {
    Update: {
      TableName: playTable(),
      Key: key,
      UpdateExpression: `ADD ${parts.join(', ')}${sets}`,
      ExpressionAttributeValues: values,
    },
  };
};

/**
 * The key and adds of an item made by `metaItem` (undefined for any other item): the writes of several players
 * of one board in one transaction are merged into one item (saves/groups.ts).
 */
export const metaAddsOf = (item: TransactItem) => {
  const update = item.Update;
  const key = update?.Key as { pk?: unknown; sk?: unknown } | undefined;
  if (key?.sk !== 'HEIGHT' || typeof key.pk !== 'string') return undefined;
  const values = update?.ExpressionAttributeValues ?? {};
  const adds: MetaAdds = {};
  for (const name of META_SETS) {
    const set = values[`:${name}`];
    if (set instanceof Set) adds[name] = [...set].map(Number);
  }
  if (typeof values[':players'] === 'number') adds.players = values[':players'];
  const activity =
    typeof values[':activeDay'] === 'string' && typeof values[':activeGame'] === 'string'
      ? { activeDay: values[':activeDay'], activeGame: values[':activeGame'] }
      : undefined;
  return { key: { pk: key.pk, sk: 'HEIGHT' }, adds, activity };
};

/** The index entry of a day board's meta item (none for the all-time board). */
const boardActivity = (board: BoardRef): DayActivity | undefined =>
  board.kind === 'day'
    ? playIndexes.activity(board.gameId, board.day, shardOf(board.gameId, ACTIVITY_SHARDS))
    : undefined;

/**
 * What a move writes to its board's meta item (and, when a day board widens, to its game's all-time one):
 * the new score's top level when above the height; the width the entry is put at when the board's item does
 * not have it yet (a day board starting as wide as its game's days grew); and, for a player entering the board
 * whose Arc ID falls in shard 0 of the width (one in `width`), `width` more players in the estimate, with the
 * next width once the estimate needs it. Sampling keeps the estimate's writes at a shard's share of the entries.
 */
const metaWrites = (board: BoardRef, meta: BoardMeta, arcId: string, before: number, after: number) => {
  const adds: MetaAdds = {};
  const level = topLevel(after);
  if (after > 0 && (meta.height === null || level > meta.height)) adds.levels = [level];
  const widths = new Set<number>();
  if (after > 0 && meta.width > meta.recorded) widths.add(meta.width);
  const entering = before <= 0 && after > 0;
  let wider: number | undefined;
  if (entering && meta.width < MAX_WIDTH && shardOf(arcId, meta.width) === 0) {
    adds.players = meta.width;
    const next = widthFor(meta.players + meta.width);
    if (next > meta.width) {
      widths.add(next);
      wider = next;
    }
  }
  if (widths.size > 0) adds.widths = [...widths];
  const items: TransactItem[] = [];
  if (adds.levels || adds.widths || adds.players)
    items.push(metaItem(metaKey(board), adds, adds.levels ? boardActivity(board) : undefined));
  if (wider !== undefined && board.kind === 'day')
    items.push(metaItem(metaKey({ kind: 'all', gameId: board.gameId }), { dayWidths: [wider] }));
  return items;
};

/**
 * What a total's update adds for its board: the index attributes of its new standing (SET, or REMOVE when it
 * leaves the board), the condition that its points are still those moved from, the counter updates and the
 * meta item's (`meta`: the board's as read). The entry goes to the shard of the board's width (it was in
 * `from.shard`, read from its entry), its counter ADDs to the player's copy among the board's counter copies.
 * Without `meta` (a move down, by invalidation) the entry and its ADDs stay in its shard and the meta item is not
 * written: a move down never raises the height.
 */
export const boardMove = (board: BoardRef, from: Standing | undefined, to: Standing, meta?: BoardMeta) => {
  const before = Math.max(0, from?.points ?? 0);
  const after = Math.max(0, to.points);
  if (before > 0 && from?.shard === undefined)
    throw new Error(`the entry of ${to.arcId} on a board was read without its shard`);
  const fromShard = before > 0 ? from?.shard : undefined;
  const toShard = meta ? shardOf(to.arcId, meta.width) : (fromShard ?? 0);
  const index = indexUpdate(boardAttributes(board, to, toShard));
  // The counters in one copy, the player's among the board's counter copies (a sum: any copy a reader reads).
  const copy = meta ? shardOf(to.arcId, counterCopies(meta)) : toShard;
  const counters = counterWrites(board, copy, before, after);
  return {
    set: index.set,
    remove: index.remove,
    values: { ...index.values, ':fromPoints': from?.points ?? 0 } as Item,
    condition:
      (from?.points ?? 0) === 0
        ? '(attribute_not_exists(points) OR points = :fromPoints)'
        : 'points = :fromPoints',
    counters,
    meta: meta ? metaWrites(board, meta, to.arcId, before, after) : [],
  };
};
