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
 * Entries read before a standing in each shard: its two neighbours, and the players tied with it who reached
 * the score first, counted from the same page as long as a shard holds fewer than `BEFORE_PAGE - 2` of them.
 */
const BEFORE_PAGE = 10;

/**
 * A standing's rank (1-based) and up to two neighbours each side, in one wave: the counters above its score,
 * and per shard the entries just before it (which also hold the ties ahead of it) and the two just after. Only
 * a shard whose page before the standing is all ties (more than BEFORE_PAGE - 2 players reached the same score
 * first there) is counted in a second wave (COUNT over the rest of its tie group).
 */
export const around = async (board: BoardRef, me: Standing) => {
  const key = rankKey(me);
  const { index, attribute } = boardIndex(board);
  const shards = Array.from({ length: BOARD_SHARDS }, (_, shard) => boardPartition(board, shard));
  const [counters, befores, after] = await Promise.all([
    readCounters(board, countNodes(me.points)),
    Promise.all(
      shards.map((value) =>
        queryRankRange({
          index,
          key: attribute,
          value,
          range: { before: key },
          forward: false,
          limit: BEFORE_PAGE,
        }),
      ),
    ),
    acrossShards(board, { after: key }, true, 2),
  ]);
  const above = countAbove(me.points, lookup(counters));
  const tieCounts = await Promise.all(
    befores.map(async (page, shard) => {
      const ties = page.items.filter((item) => Number(item.points) === me.points);
      const last = ties[ties.length - 1];
      // The page ended inside the tie group: count the rest of it, below the last tie read.
      if (ties.length < page.items.length || !page.next || !last) return ties.length;
      const rest = await countShard(board, shards[shard] as string, {
        from: tieStart(me.points),
        to: justBelow(String(last.rankKey)),
      });
      return ties.length + rest;
    }),
  );
  const rank = above + tieCounts.reduce((a, b) => a + b, 0) + 1;
  const closest = befores
    .flatMap((p) => p.items.map(standing))
    .sort(byRank)
    .slice(-2);
  const entry = (s: Standing, r: number) => ({ rank: r, arcId: s.arcId, points: s.points });
  return {
    rank,
    neighbours: [
      ...closest.map((s, i) => entry(s, rank - closest.length + i)),
      ...after.slice(0, 2).map((s, i) => entry(s, rank + 1 + i)),
    ],
  };
};
