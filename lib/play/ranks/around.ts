// A standing's rank and neighbours on a board (docs/leaderboards.md §1, §4): its score's counters and the index
// entries on both sides of it in every shard in one wave, a COUNT over a large tie group in a second (in the
// first, once the board has recorded the group's score). Apart from ranks/reads.ts because it writes: the first
// read that counts a large tie group records its score on the board's meta item, and only the functions that rank
// a player carry that grant.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { dynamo, isConditionFailure } from '../../adapters/dynamodb.js';
import { logger } from '../../core/logger.js';
import { playKeys } from '../keys.js';
import { getItems, itemKey, playTable, queryRankRange } from '../repository.js';
import {
  type BoardMeta,
  type BoardRef,
  boardIndex,
  boardPartition,
  byRank,
  countAbove,
  counterCopies,
  countNodes,
  metaKey,
  metaOf,
  rankKey,
  type Standing,
  tieStart,
} from './board.js';
import { countShard, lookup, type Range, readCounters, standing } from './reads.js';
import { tournamentPlayKeys } from './tournament-entries.js';

type Item = Record<string, NativeAttributeValue>;

/** The greatest rank key below `key` of the same length (rank keys have one width: points, instant, UUID). */
const justBelow = (key: string) =>
  `${key.slice(0, -1)}${String.fromCharCode(key.charCodeAt(key.length - 1) - 1)}`;

/**
 * Entries read before a standing in each shard: its two neighbours that side, and the players tied with it there
 * ahead of it, counted from the page as long as the page leaves the tie group.
 */
const SIDE_PAGE = 10;

/** Scores a board's meta item records as large tie groups, at most: beyond them reads take the COUNT wave. */
const MAX_TIES = 64;

/**
 * Records that a board has a large tie group at `points` (ADD to the meta item's `ties`, while it holds fewer than
 * MAX_TIES and the board exists), so that later rank reads at that score count their ties ahead in their first
 * wave. Best effort: a hint that fails to be written costs the next read its COUNT wave, nothing else.
 */
const recordTieGroup = async (board: BoardRef, points: number) => {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: playTable(),
        Key: metaKey(board),
        UpdateExpression: 'ADD ties :p',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(ties) OR size(ties) < :max)',
        ExpressionAttributeValues: { ':p': new Set([points]), ':max': MAX_TIES },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) logger.warn('tie group not recorded', { error });
  }
};

/** Neighbours shown on each side of a standing. */
const NEIGHBOURS = 2;

/** How many of a page's entries are in a group, when the page shows them all (it left the group, or ended). */
const groupIn = (page: { items: Item[]; next?: Item | undefined }, member: (item: Item) => boolean) => {
  const n = page.items.filter(member).length;
  return n < page.items.length || !page.next ? n : undefined;
};

/**
 * A standing's rank (1-based) and up to two neighbours each side, after its total and its board's meta were read:
 * in one wave, the counters on its score's path up to the height (the players of higher scores) and per index
 * shard the entries just before it and just after it. The players tied with it who reached the score first are
 * counted per shard from the page before it, which leaves the tie group unless more than SIDE_PAGE of them are in
 * the shard: only such a shard is counted in a second wave, by a COUNT over its part of the tie group before the
 * standing (bounded by the tie group, not the board). That wave also records the score on the board's meta item
 * (`recordTieGroup`). A read at a recorded score counts the ties ahead of it in every shard with that COUNT in its
 * first wave instead, and reads only its two neighbours before it: two waves, whatever the group's size.
 */
export const around = async (board: BoardRef, me: Standing, meta: BoardMeta) => {
  const key = rankKey(me);
  const { index, attribute } = boardIndex(board);
  const shards = Array.from({ length: meta.recorded }, (_, shard) => boardPartition(board, shard));
  const side = (range: Range, forward: boolean, limit: number) =>
    Promise.all(
      shards.map((value) => queryRankRange({ index, key: attribute, value, range, forward, limit })),
    );
  const height = meta.height ?? undefined;
  const recorded = meta.ties.has(me.points);
  const tiedBefore = { from: tieStart(me.points), to: justBelow(key) };
  const [counters, befores, afters, counted] = await Promise.all([
    readCounters(board, countNodes(me.points, height), counterCopies(meta)),
    side({ before: key }, false, recorded ? NEIGHBOURS : SIDE_PAGE),
    // After it only its neighbours: nothing behind it is counted.
    side({ after: key }, true, NEIGHBOURS),
    recorded ? Promise.all(shards.map((value) => countShard(board, value, tiedBefore))) : undefined,
  ]);
  const above = countAbove(me.points, lookup(counters), height);
  const tied = (item: Item) => Number(item.points) === me.points;
  const counting = !counted && befores.some((page) => groupIn(page, tied) === undefined);
  const [tieCounts] = await Promise.all([
    counted ??
      Promise.all(
        befores.map(async (page, shard) => {
          const ahead = groupIn(page, tied);
          if (ahead !== undefined) return ahead;
          const last = page.items[page.items.length - 1];
          const rest = await countShard(board, shards[shard] as string, {
            from: tieStart(me.points),
            to: justBelow(String(last?.rankKey)),
          });
          return page.items.length + rest;
        }),
      ),
    counting ? recordTieGroup(board, me.points) : undefined,
  ]);
  const rank = above + tieCounts.reduce((a, b) => a + b, 0) + 1;
  const closest = befores
    .flatMap((p) => p.items.map(standing))
    .sort(byRank)
    .slice(-NEIGHBOURS);
  const after = afters
    .flatMap((p) => p.items.map(standing))
    .sort(byRank)
    .slice(0, NEIGHBOURS);
  const entry = (s: Standing, r: number) => ({ rank: r, arcId: s.arcId, points: s.points });
  return {
    rank,
    neighbours: [
      ...closest.map((s, i) => entry(s, rank - closest.length + i)),
      ...after.map((s, i) => entry(s, rank + 1 + i)),
    ],
  };
};

/** The key of a player's total on a board. */
const totalKey = (board: BoardRef, arcId: string) => {
  switch (board.kind) {
    case 'day':
      return playKeys.day(board.gameId, arcId, board.day);
    case 'all':
      return playKeys.allTime(board.gameId, arcId);
    case 'tournament':
      return tournamentPlayKeys.entry(board.gameId, arcId, board.tournamentId, board.period);
  }
};

/**
 * A player's points, rank and neighbours on a board (undefined when off it): its total and the board's meta item
 * in one read, then `around`.
 */
export const playerRank = async (board: BoardRef, arcId: string) => {
  const key = totalKey(board, arcId);
  const read = await getItems([key, metaKey(board)]);
  const item = read.get(itemKey(key));
  const points = Number(item?.points ?? 0);
  if (points <= 0) return undefined;
  const me = { arcId, points, reachedAt: String(item?.reachedAt ?? item?.updatedAt ?? '') };
  return { points, ...(await around(board, me, metaOf(read.get(itemKey(metaKey(board)))))) };
};
