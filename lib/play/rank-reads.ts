// Reading a board through its rank index (docs/leaderboards.md §1): the board's meta item (height and width),
// the board's size and a score's rank from the score tree's counters (one batched read), the entries from the
// board's index partitions (one query each, in parallel), and the score at any rank by walking down the tree.
// No read grows with the board; a rank in a large tie group counts the ties ahead of it in its shards.
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { playKeys } from './keys.js';
import {
  type BoardMeta,
  type BoardRef,
  boardIndex,
  boardPartition,
  byRank,
  type Counters,
  countAbove,
  counterCopies,
  counterKey,
  countNodes,
  FANOUT,
  LEVELS,
  metaKey,
  metaOf,
  rankKey,
  type Standing,
  type TreeNode,
  tieStart,
} from './rank-index.js';
import { getItem, getItems, itemKey, queryRankRange } from './repository.js';
import { tournamentPlayKeys } from './tournament-entries.js';

type Item = Record<string, NativeAttributeValue>;

const nodeId = ({ level, node }: TreeNode) => `${level}#${node}`;

/** Keys per BatchGetItem of counters, about (see `readCounters`). */
const REQUEST_KEYS = 22;

/**
 * The score tree's counters of some nodes of a board, summed over its `width` copies (`counterCopies`), in parallel
 * BatchGetItem requests of ~22 keys rather than one per 100 keys: DynamoDB Local serves a BatchGetItem's keys
 * one after another but requests in parallel (88 keys: 26–28 ms in one request, 19–22 ms in four;
 * bench/leaderboard.ts, docs/leaderboards.md §4).
 */
const readCounters = async (board: BoardRef, nodes: TreeNode[], width: number) => {
  const unique = [...new Map(nodes.map((n) => [nodeId(n), n])).values()];
  const keys = unique.flatMap((n) => Array.from({ length: width }, (_, c) => counterKey(board, n, c)));
  const requests = Math.max(1, Math.floor(keys.length / REQUEST_KEYS));
  const size = Math.ceil(keys.length / requests);
  // Eventually consistent like the index partitions they are read with (and half the read units).
  const reads = await Promise.all(
    Array.from({ length: requests }, (_, i) => getItems(keys.slice(i * size, (i + 1) * size), false)),
  );
  const items = new Map(reads.flatMap((r) => [...r]));
  const sum = new Map<string, Counters>();
  for (const n of unique) {
    const sums = new Map<number, number>();
    for (let c = 0; c < width; c++) {
      const item = items.get(itemKey(counterKey(board, n, c)));
      for (let d = 1; d < FANOUT; d++) {
        const v = Number(item?.[`c${d}`] ?? 0);
        if (v !== 0) sums.set(d, (sums.get(d) ?? 0) + v);
      }
    }
    sum.set(nodeId(n), sums);
  }
  return sum;
};

/** A board's meta item (its height and the widest width it had: how many shards a read covers). */
export const readMeta = async (board: BoardRef): Promise<BoardMeta> => metaOf(await getItem(metaKey(board)));

const lookup = (counters: Map<string, Counters>) => (n: TreeNode) => counters.get(nodeId(n)) ?? new Map();

/** Standings with more than `points` on a board (1 + this is the best rank a score of `points` can have). */
export const countAboveOn = async (board: BoardRef, points: number): Promise<number> => {
  const meta = await readMeta(board);
  if (meta.height === null) return 0;
  const counters = await readCounters(board, countNodes(points, meta.height), counterCopies(meta));
  return countAbove(points, lookup(counters), meta.height);
};

/** Players on a board (with points > 0). */
export const boardSize = (board: BoardRef): Promise<number> => countAboveOn(board, 0);

const standing = (item: Item): Standing => ({
  arcId: String(item.arcId),
  points: Number(item.points ?? 0),
  reachedAt: String(item.reachedAt ?? ''),
});

type Range = Parameters<typeof queryRankRange>[0]['range'];

/** Every index partition of a board (`width` of them) queried at once over the same range, merged in leaderboard order. */
const acrossShards = async (
  board: BoardRef,
  width: number,
  range: Range,
  forward: boolean,
  limit: number,
) => {
  const { index, attribute } = boardIndex(board);
  const pages = await Promise.all(
    Array.from({ length: width }, (_, shard) =>
      queryRankRange({ index, key: attribute, value: boardPartition(board, shard), range, forward, limit }),
    ),
  );
  return pages.flatMap((p) => p.items.map(standing)).sort(byRank);
};

/** How many entries of one index partition of a board lie in a range (COUNT queries, paged). */
const countShard = async (board: BoardRef, value: string, range: Range): Promise<number> => {
  const { index, attribute } = boardIndex(board);
  let total = 0;
  let start: Item | undefined;
  do {
    const page = await queryRankRange({
      index,
      key: attribute,
      value,
      range,
      forward: true,
      count: true,
      start,
    });
    total += page.count;
    start = page.next;
  } while (start);
  return total;
};

/** The first `n` standings of a board (its meta read first unless given). */
export const topOf = async (board: BoardRef, n: number, meta?: BoardMeta): Promise<Standing[]> => {
  const { recorded, height } = meta ?? (await readMeta(board));
  if (height === null) return [];
  return (await acrossShards(board, recorded, { from: '0' }, true, n)).slice(0, n);
};

/**
 * The score of the standing at rank `k` (1-based) and how many stand above that score: from the counters of
 * node 0 at every level (one read, which also gives the board's size), then one read per level below the first
 * non-zero digit of the score. Undefined beyond the board's end.
 */
export const scoreAt = async (board: BoardRef, k: number, meta: BoardMeta) => {
  const copies = counterCopies(meta);
  const zero = await readCounters(board, countNodes(0, meta.height ?? 0), copies);
  const get = lookup(zero);
  const size = countAbove(0, get);
  if (k > size) return undefined;
  let node = 0;
  let total = size;
  let above = 0;
  for (let level = LEVELS - 1; level >= 0; level--) {
    const counters =
      node === 0
        ? get({ level, node })
        : lookup(await readCounters(board, [{ level, node }], copies))({ level, node });
    let chosen = 0;
    let rest = total;
    for (let d = FANOUT - 1; d >= 1; d--) {
      const c = counters.get(d) ?? 0;
      if (above + c >= k) {
        chosen = d;
        rest = c;
        break;
      }
      above += c;
      rest -= c;
    }
    node = node * FANOUT + chosen;
    total = rest;
  }
  return { points: node, above };
};

/** The page of `limit` standings from rank `offset + 1`. */
export const pageOf = async (board: BoardRef, offset: number, limit: number): Promise<Standing[]> => {
  const meta = await readMeta(board);
  if (meta.height === null) return [];
  // A shallow page is cheaper read straight from the partitions than found through the tree.
  if (offset + limit <= 100) return (await topOf(board, offset + limit, meta)).slice(offset);
  const at = await scoreAt(board, offset + 1, meta);
  if (!at) return [];
  const skip = offset - at.above;
  const from = await acrossShards(board, meta.recorded, { from: tieStart(at.points) }, true, skip + limit);
  return from.slice(skip, skip + limit);
};

/** The greatest rank key below `key` of the same length (rank keys have one width: points, instant, UUID). */
const justBelow = (key: string) =>
  `${key.slice(0, -1)}${String.fromCharCode(key.charCodeAt(key.length - 1) - 1)}`;

/**
 * Entries read before a standing in each shard: its two neighbours that side, and the players tied with it there
 * ahead of it, counted from the page as long as the page leaves the tie group.
 */
const SIDE_PAGE = 10;

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
 * standing (bounded by the tie group, not the board).
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
  const [counters, befores, afters] = await Promise.all([
    readCounters(board, countNodes(me.points, height), counterCopies(meta)),
    side({ before: key }, false, SIDE_PAGE),
    // After it only its neighbours: nothing behind it is counted.
    side({ after: key }, true, NEIGHBOURS),
  ]);
  const above = countAbove(me.points, lookup(counters), height);
  const tied = (item: Item) => Number(item.points) === me.points;
  const tieCounts = await Promise.all(
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
  );
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
