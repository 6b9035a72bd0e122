// Reading a board through its rank index (docs/leaderboards.md §1): the board's size and a score's rank from
// the score tree's counters (one batched read), the entries from the board's index partitions (one query each,
// in parallel), and the score at any rank by walking down the tree. No read grows with the board.
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import {
  BOARD_SHARDS,
  type BoardRef,
  boardIndex,
  boardPartition,
  byRank,
  type Counters,
  countAbove,
  counterKey,
  countNodes,
  FANOUT,
  LEVELS,
  rankKey,
  type Standing,
  TREE_SHARDS,
  type TreeNode,
  tieStart,
} from './rank-index.js';
import { getItems, itemKey, queryRankRange } from './repository.js';

type Item = Record<string, NativeAttributeValue>;

const nodeId = ({ level, node }: TreeNode) => `${level}#${node}`;

/** The counters of some nodes, each summed over its copies: one BatchGetItem per 100 keys, in parallel. */
const readCounters = async (board: BoardRef, nodes: TreeNode[]): Promise<Map<string, Counters>> => {
  const unique = [...new Map(nodes.map((n) => [nodeId(n), n])).values()];
  const keys = unique.flatMap((n) => Array.from({ length: TREE_SHARDS }, (_, s) => counterKey(board, n, s)));
  // Eventually consistent like the index partitions they are read with (and half the read units).
  const items = await getItems(keys, false);
  const counters = new Map<string, Counters>();
  for (const n of unique) {
    const sums = new Map<number, number>();
    for (let s = 0; s < TREE_SHARDS; s++) {
      const item = items.get(itemKey(counterKey(board, n, s)));
      for (let d = 1; d < FANOUT; d++) {
        const c = Number(item?.[`c${d}`] ?? 0);
        if (c !== 0) sums.set(d, (sums.get(d) ?? 0) + c);
      }
    }
    counters.set(nodeId(n), sums);
  }
  return counters;
};

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

/** How many entries of a board's index partitions lie in a range (COUNT queries, paged). */
const countAcrossShards = async (board: BoardRef, range: Range): Promise<number> => {
  const { index, attribute } = boardIndex(board);
  const counts = await Promise.all(
    Array.from({ length: BOARD_SHARDS }, async (_, shard) => {
      let total = 0;
      let start: Item | undefined;
      do {
        const page = await queryRankRange({
          index,
          key: attribute,
          value: boardPartition(board, shard),
          range,
          forward: true,
          count: true,
          start,
        });
        total += page.count;
        start = page.next;
      } while (start);
      return total;
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
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
 * A standing's rank (1-based) and up to two neighbours each side: the counters above its score and at it
 * (`count(> p − 1)`, nodes mostly shared) and the nearest entries of every shard in one wave; only when others
 * share its score, a second wave counts those who reached it first.
 */
export const around = async (board: BoardRef, me: Standing) => {
  const key = rankKey(me);
  const [counters, before, after] = await Promise.all([
    readCounters(board, [...countNodes(me.points), ...countNodes(me.points - 1)]),
    acrossShards(board, { before: key }, false, 2),
    acrossShards(board, { after: key }, true, 2),
  ]);
  const above = countAbove(me.points, lookup(counters));
  const others = countAbove(me.points - 1, lookup(counters)) - above - 1;
  const tiedBefore =
    others > 0 ? await countAcrossShards(board, { from: tieStart(me.points), to: justBelow(key) }) : 0;
  const rank = above + tiedBefore + 1;
  const closest = before.slice(-2);
  const entry = (s: Standing, r: number) => ({ rank: r, arcId: s.arcId, points: s.points });
  return {
    rank,
    neighbours: [
      ...closest.map((s, i) => entry(s, rank - closest.length + i)),
      ...after.slice(0, 2).map((s, i) => entry(s, rank + 1 + i)),
    ],
  };
};
