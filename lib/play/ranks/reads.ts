// Reading a board through its rank index (docs/leaderboards.md §1): the board's meta item (height and width),
// the board's size and a score's rank from the score tree's counters (one batched read), the entries from the
// board's index partitions (one query each, in parallel), and the score at any rank by walking down the tree.
// No read grows with the board. A player's rank and neighbours are ranks/around.ts's.
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { getItem, getItems, itemKey, queryRankRange } from '../repository.js';
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
  type Standing,
  type TreeNode,
  tieStart,
} from './board.js';

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
export const readCounters = async (board: BoardRef, nodes: TreeNode[], width: number) => {
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

export const lookup = (counters: Map<string, Counters>) => (n: TreeNode) =>
  counters.get(nodeId(n)) ?? new Map();

/** Standings with more than `points` on a board (1 + this is the best rank a score of `points` can have). */
export const countAboveOn = async (board: BoardRef, points: number): Promise<number> => {
  const meta = await readMeta(board);
  if (meta.height === null) return 0;
  const counters = await readCounters(board, countNodes(points, meta.height), counterCopies(meta));
  return countAbove(points, lookup(counters), meta.height);
};

/** Players on a board (with points > 0). */
export const boardSize = (board: BoardRef): Promise<number> => countAboveOn(board, 0);

export const standing = (item: Item): Standing => ({
  arcId: String(item.arcId),
  points: Number(item.points ?? 0),
  reachedAt: String(item.reachedAt ?? ''),
});

export type Range = Parameters<typeof queryRankRange>[0]['range'];

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
export const countShard = async (board: BoardRef, value: string, range: Range): Promise<number> => {
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
