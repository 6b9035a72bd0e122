// Reading a board through its rank index (docs/leaderboards.md §1): the board's size and a score's rank from
// the score tree's counters and the score's tie tree (one batched read), the entries from the board's index
// partitions (one query each, in parallel), and the score at any rank by walking down the tree. No read grows
// with the board.
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { playKeys } from './keys.js';
import {
  BOARD_SHARDS,
  type BoardRef,
  boardIndex,
  boardPartition,
  byRank,
  type Counters,
  countAbove,
  countAt,
  counterKey,
  countInMinute,
  countLater,
  countNodes,
  FANOUT,
  heightKey,
  heightOf,
  LEVELS,
  rankKey,
  type Standing,
  TIE_SHARDS,
  TREE_SHARDS,
  type TreeNode,
  tieKey,
  tieMinute,
  tieMinuteStart,
  tieNodes,
  tieStart,
} from './rank-index.js';
import { getItems, itemKey, queryRankRange } from './repository.js';

type Item = Record<string, NativeAttributeValue>;

const nodeId = ({ level, node }: TreeNode) => `${level}#${node}`;

/** Some nodes of one tree: how to name a node's copy (score tree, or one score's tie tree) and how many copies. */
interface TreeRead {
  nodes: TreeNode[];
  key: (n: TreeNode, copy: number) => { pk: string; sk: string };
  copies: number;
}

/** Keys per BatchGetItem of counters, about: a score-tree node's copies (see `readTrees`). */
const REQUEST_KEYS = TREE_SHARDS;

/**
 * The counters of some nodes of some trees, summed over their copies (one map per tree), in parallel
 * BatchGetItem requests of ~22 keys rather than one per 100 keys: DynamoDB Local serves a BatchGetItem's keys
 * one after another but requests in parallel (88 keys: 26–28 ms in one request, 19–22 ms in four;
 * bench/leaderboard.ts, docs/leaderboards.md §4). A tie tree's level 0 counts digit 0 too.
 */
const readTrees = async (trees: TreeRead[]): Promise<Array<Map<string, Counters>>> => {
  const unique = trees.map((t) => [...new Map(t.nodes.map((n) => [nodeId(n), n])).values()]);
  const keys = trees.flatMap((t, i) =>
    (unique[i] ?? []).flatMap((n) => Array.from({ length: t.copies }, (_, c) => t.key(n, c))),
  );
  const requests = Math.max(1, Math.floor(keys.length / REQUEST_KEYS));
  const size = Math.ceil(keys.length / requests);
  // Eventually consistent like the index partitions they are read with (and half the read units).
  const reads = await Promise.all(
    Array.from({ length: requests }, (_, i) => getItems(keys.slice(i * size, (i + 1) * size), false)),
  );
  const items = new Map(reads.flatMap((r) => [...r]));
  return trees.map((t, i) => {
    const sum = new Map<string, Counters>();
    for (const n of unique[i] ?? []) {
      const sums = new Map<number, number>();
      for (let c = 0; c < t.copies; c++) {
        const item = items.get(itemKey(t.key(n, c)));
        for (let d = 0; d < FANOUT; d++) {
          const v = Number(item?.[`c${d}`] ?? 0);
          if (v !== 0) sums.set(d, (sums.get(d) ?? 0) + v);
        }
      }
      sum.set(nodeId(n), sums);
    }
    return sum;
  });
};

/** The score tree's counters of some nodes of a board, summed over their copies. */
const scoreTree = (board: BoardRef, nodes: TreeNode[]): TreeRead => ({
  nodes,
  key: (n, copy) => counterKey(board, n, copy),
  copies: TREE_SHARDS,
});

const readCounters = async (board: BoardRef, nodes: TreeNode[]) =>
  (await readTrees([scoreTree(board, nodes)]))[0] ?? new Map<string, Counters>();

const lookup = (counters: Map<string, Counters>) => (n: TreeNode) => counters.get(nodeId(n)) ?? new Map();

/** Standings with more than `points` on a board (1 + this is the best rank a score of `points` can have). */
export const countAboveOn = async (board: BoardRef, points: number): Promise<number> =>
  countAbove(points, lookup(await readCounters(board, countNodes(points))));

/** Players on a board (with points > 0). */
export const boardSize = (board: BoardRef): Promise<number> => countAboveOn(board, 0);

const standing = (item: Item): Standing => ({
  arcId: String(item.arcId),
  points: Number(item.points ?? 0),
  reachedAt: String(item.reachedAt ?? ''),
});

type Range = Parameters<typeof queryRankRange>[0]['range'];

/** Every index partition of a board queried at once over the same range, merged in leaderboard order. */
const acrossShards = async (board: BoardRef, range: Range, forward: boolean, limit: number) => {
  const { index, attribute } = boardIndex(board);
  const pages = await Promise.all(
    Array.from({ length: BOARD_SHARDS }, (_, shard) =>
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

/** The first `n` standings of a board. */
export const topOf = async (board: BoardRef, n: number): Promise<Standing[]> =>
  (await acrossShards(board, { from: '0' }, true, n)).slice(0, n);

/**
 * The score of the standing at rank `k` (1-based) and how many stand above that score: from the counters of
 * node 0 at every level (one read, which also gives the board's size), then one read per level below the first
 * non-zero digit of the score. Undefined beyond the board's end.
 */
export const scoreAt = async (board: BoardRef, k: number) => {
  const zero = await readCounters(board, countNodes(0));
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
        : lookup(await readCounters(board, [{ level, node }]))({ level, node });
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
  // A shallow page is cheaper read straight from the partitions than found through the tree.
  if (offset + limit <= 100) return (await topOf(board, offset + limit)).slice(offset);
  const at = await scoreAt(board, offset + 1);
  if (!at) return [];
  const skip = offset - at.above;
  const from = await acrossShards(board, { from: tieStart(at.points) }, true, skip + limit);
  return from.slice(skip, skip + limit);
};

/** The greatest rank key below `key` of the same length (rank keys have one width: points, instant, UUID). */
const justBelow = (key: string) =>
  `${key.slice(0, -1)}${String.fromCharCode(key.charCodeAt(key.length - 1) - 1)}`;

/**
 * Entries read on each side of a standing in each shard: its two neighbours that side, and the players tied
 * with it there (or who reached its score in its minute), counted from the page as long as it leaves that group.
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
 * How far a reader allows writers' clocks to run ahead of its own: a tie tree's levels above the highest where a
 * minute up to now + this differs from the standing's are not read (docs/leaderboards.md §1).
 */
const CLOCK_SKEW_MS = 10 * 60_000;

/**
 * A standing's rank (1-based) and up to two neighbours each side, in one wave after its total (and its board's
 * height, `height`: undefined when unknown) was read: the counters on its score's path up to the height, its
 * score's tie tree on its minute's path, and per index shard the entries just before it and just after it.
 * Ahead of it: the players of higher scores (score tree), those tied who reached the score in an earlier minute
 * (the score's ties less those of later minutes and of its minute: tie tree), and those of its minute ahead of
 * it, counted per shard from the page before it, which leaves that minute's group unless more than SIDE_PAGE
 * players of the shard reached the score in that minute before it: only such a shard is counted in a second
 * wave (COUNT over the minute's group before the standing).
 */
export const around = async (board: BoardRef, me: Standing, height?: number) => {
  const key = rankKey(me);
  const { index, attribute } = boardIndex(board);
  const shards = Array.from({ length: BOARD_SHARDS }, (_, shard) => boardPartition(board, shard));
  const side = (range: Range, forward: boolean, limit: number) =>
    Promise.all(
      shards.map((value) => queryRankRange({ index, key: attribute, value, range, forward, limit })),
    );
  const minute = tieMinute(board, me.reachedAt);
  const ties = tieNodes(board, minute, tieMinute(board, new Date(Date.now() + CLOCK_SKEW_MS).toISOString()));
  const [[counters = new Map(), tieCounters = new Map()], befores, afters] = await Promise.all([
    readTrees([
      scoreTree(board, countNodes(me.points, height)),
      { nodes: ties, key: (n, copy) => tieKey(board, me.points, n, copy), copies: TIE_SHARDS },
    ]),
    side({ before: key }, false, SIDE_PAGE),
    // After it only its neighbours: nothing behind it is counted.
    side({ after: key }, true, NEIGHBOURS),
  ]);
  const above = countAbove(me.points, lookup(counters), height);
  const inMinute = countInMinute(minute, lookup(tieCounters));
  const later = countLater(minute, ties, lookup(tieCounters));
  // At least 0 (on AWS a read may see the two trees at different moments).
  const earlier = Math.max(0, countAt(me.points, lookup(counters)) - later - inMinute);
  const sameMinute = (item: Item) =>
    Number(item.points) === me.points && tieMinute(board, String(item.reachedAt)) === minute;
  const tieCounts = await Promise.all(
    befores.map(async (page, shard) => {
      const ahead = groupIn(page, sameMinute);
      if (ahead !== undefined) return ahead;
      const last = page.items[page.items.length - 1];
      const rest = await countShard(board, shards[shard] as string, {
        from: tieStart(me.points) + (minute === 0 ? '' : tieMinuteStart(board, minute)),
        to: justBelow(String(last?.rankKey)),
      });
      return page.items.length + rest;
    }),
  );
  const rank = above + earlier + tieCounts.reduce((a, b) => a + b, 0) + 1;
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
const totalKey = (board: BoardRef, arcId: string) =>
  board.kind === 'day' ? playKeys.day(board.gameId, arcId, board.day) : playKeys.allTime(board.gameId, arcId);

/**
 * A player's points, rank and neighbours on a board (undefined when off it): its total and the board's height in
 * one read, then `around`.
 */
export const playerRank = async (board: BoardRef, arcId: string) => {
  const key = totalKey(board, arcId);
  const read = await getItems([key, heightKey(board)]);
  const item = read.get(itemKey(key));
  const points = Number(item?.points ?? 0);
  if (points <= 0) return undefined;
  const height = heightOf(read.get(itemKey(heightKey(board)))) ?? undefined;
  const me = { arcId, points, reachedAt: String(item?.reachedAt ?? item?.updatedAt ?? '') };
  return { points, ...(await around(board, me, height)) };
};
