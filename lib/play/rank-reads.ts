// Reading a board through its rank index (docs/leaderboards.md §1): the board's size and a score's rank from
// the score tree's counters (one batched read), the entries from the board's index partitions (one query each,
// in parallel), and the score at any rank by walking down the tree. No read grows with the board.
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
  countNodes,
  FANOUT,
  heightKey,
  heightOf,
  LEVELS,
  rankKey,
  type Standing,
  shardOf,
  TREE_SHARDS,
  type TreeNode,
  tieStart,
} from './rank-index.js';
import { getItems, itemKey, queryRankRange } from './repository.js';

type Item = Record<string, NativeAttributeValue>;

const nodeId = ({ level, node }: TreeNode) => `${level}#${node}`;

/** The counters of some nodes by copy (`copies[s]`) and summed over the copies (`sum`). */
interface CounterRead {
  sum: Map<string, Counters>;
  copies: Array<Map<string, Counters>>;
}

/**
 * The counters of some nodes: one BatchGetItem per node (its 22 copies), all in parallel. One request per node
 * rather than one per 100 keys: DynamoDB Local serves a BatchGetItem's keys one after another but requests in
 * parallel (88 keys: 26–28 ms in one request, 19–22 ms in four; bench/leaderboard.ts, docs/leaderboards.md §4).
 */
const readCounters = async (board: BoardRef, nodes: TreeNode[]): Promise<CounterRead> => {
  const unique = [...new Map(nodes.map((n) => [nodeId(n), n])).values()];
  // Eventually consistent like the index partitions they are read with (and half the read units).
  const reads = await Promise.all(
    unique.map((n) =>
      getItems(
        Array.from({ length: TREE_SHARDS }, (_, s) => counterKey(board, n, s)),
        false,
      ),
    ),
  );
  const items = new Map(reads.flatMap((r) => [...r]));
  const sum = new Map<string, Counters>();
  const copies = Array.from({ length: TREE_SHARDS }, () => new Map<string, Counters>());
  for (const n of unique) {
    const sums = new Map<number, number>();
    for (let s = 0; s < TREE_SHARDS; s++) {
      const item = items.get(itemKey(counterKey(board, n, s)));
      const copy = new Map<number, number>();
      for (let d = 1; d < FANOUT; d++) {
        const c = Number(item?.[`c${d}`] ?? 0);
        if (c === 0) continue;
        copy.set(d, c);
        sums.set(d, (sums.get(d) ?? 0) + c);
      }
      copies[s]?.set(nodeId(n), copy);
    }
    sum.set(nodeId(n), sums);
  }
  return { sum, copies };
};

const lookup = (counters: Map<string, Counters>) => (n: TreeNode) => counters.get(nodeId(n)) ?? new Map();

/** Standings with more than `points` on a board (1 + this is the best rank a score of `points` can have). */
export const countAboveOn = async (board: BoardRef, points: number): Promise<number> =>
  countAbove(points, lookup((await readCounters(board, countNodes(points))).sum));

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
  const get = lookup(zero.sum);
  const size = countAbove(0, get);
  if (k > size) return undefined;
  let node = 0;
  let total = size;
  let above = 0;
  for (let level = LEVELS - 1; level >= 0; level--) {
    const counters =
      node === 0
        ? get({ level, node })
        : lookup((await readCounters(board, [{ level, node }])).sum)({ level, node });
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
 * with it there, counted from the page as long as it leaves the tie group.
 */
const SIDE_PAGE = 10;

/** How many of a page's entries are tied at `points`, when the page shows them all (it left the tie group). */
const tiesIn = (page: { items: Item[]; next?: Item | undefined }, points: number): number | undefined => {
  const ties = page.items.filter((item) => Number(item.points) === points).length;
  return ties < page.items.length || !page.next ? ties : undefined;
};

/**
 * A standing's rank (1-based) and up to two neighbours each side, in one wave after its total (and its board's
 * height, `height`: undefined when unknown) was read: the counters on its score's path up to the height, and
 * per index shard the entries just before it and just after it. The counter copies are the index shards
 * (both by the Arc ID's hash), so a shard's copy tells how many of its players are tied at the score: a shard's
 * ties ahead come from the page before the standing when that page leaves the tie group, else from the tie
 * count less the ties behind, when the page after leaves it. Only a shard with more than SIDE_PAGE ties on both
 * sides is counted in a second wave (COUNT over its tie group before the standing).
 */
export const around = async (board: BoardRef, me: Standing, height?: number) => {
  const key = rankKey(me);
  const { index, attribute } = boardIndex(board);
  const shards = Array.from({ length: BOARD_SHARDS }, (_, shard) => boardPartition(board, shard));
  const side = (range: Range, forward: boolean) =>
    Promise.all(
      shards.map((value) =>
        queryRankRange({ index, key: attribute, value, range, forward, limit: SIDE_PAGE }),
      ),
    );
  const [counters, befores, afters] = await Promise.all([
    readCounters(board, countNodes(me.points, height)),
    side({ before: key }, false),
    side({ after: key }, true),
  ]);
  const above = countAbove(me.points, lookup(counters.sum), height);
  const mine = shardOf(me.arcId, BOARD_SHARDS);
  const tieCounts = await Promise.all(
    befores.map(async (page, shard) => {
      const ahead = tiesIn(page, me.points);
      if (ahead !== undefined) return ahead;
      const behind = tiesIn(afters[shard] ?? { items: [] }, me.points);
      // A shard's counter copy holds the same players as its index partition only while both count 22.
      const copy = TREE_SHARDS === BOARD_SHARDS ? counters.copies[shard] : undefined;
      if (behind !== undefined && copy) {
        const tied = countAt(me.points, lookup(copy)) - (shard === mine ? 1 : 0);
        // At least the page's ties (on AWS the counters and the index can differ for a moment).
        return Math.max(page.items.length, tied - behind);
      }
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
    .slice(-2);
  const after = afters
    .flatMap((p) => p.items.map(standing))
    .sort(byRank)
    .slice(0, 2);
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
