// The rank index of a leaderboard (docs/leaderboards.md), pure: which boards a total is on, the order key of
// a standing, and the score tree's and tie trees' counters a change of points moves. rank-writes.ts turns moves into
// transaction items, rank-reads.ts answers ranks, pages and neighbours from them.
import { createHash } from 'node:crypto';

/** Children per node of the score tree: a node's counters fit one item under 1 KB (one write unit). */
export const FANOUT = 64;
/** Levels of the score tree: 64^9 = 2^54 covers every safe integer score. */
export const LEVELS = 9;
/**
 * Copies of each counter item (a player counts in the copy its Arc ID hashes to), so that no counter item
 * takes every write of a busy board; a read sums the copies. 22: at 10,000 updates a second on one board all in
 * one tree node, a copy takes 909 transactional write units a second (under DynamoDB's 1,000 per partition),
 * and a count's 9 levels × 22 copies = 198 keys fit two BatchGetItem calls (docs/leaderboards.md §3).
 */
export const TREE_SHARDS = 22;
/** Partitions of a board's index (GSI partition key `<board>#<shard>`): 2 index writes per update, 909/s each. */
export const BOARD_SHARDS = 22;

const MAX_POINTS = Number.MAX_SAFE_INTEGER;
const POINTS_WIDTH = String(MAX_POINTS).length;

/** A leaderboard: a game's board of one UTC day, or its all-time board. */
export type BoardRef = { kind: 'day'; gameId: string; day: string } | { kind: 'all'; gameId: string };

/** Where a total stands on its board: points > 0, reached at (ISO) — ties go to who reached it first. */
export interface Standing {
  arcId: string;
  points: number;
  reachedAt: string;
}

/** The index a board's entries live in, and the partition attribute naming it. */
export const boardIndex = (board: BoardRef) =>
  board.kind === 'day'
    ? ({ index: 'byDayRank', attribute: 'rankDay' } as const)
    : ({ index: 'byAllTimeRank', attribute: 'rankAll' } as const);

const boardId = (board: BoardRef) => (board.kind === 'day' ? `${board.gameId}#${board.day}` : board.gameId);

const hash32 = (text: string) => createHash('sha256').update(text).digest().readUInt32BE(0);

/** The shard of a player's entries (its index partition and its counter copies). */
export const shardOf = (arcId: string, shards: number) => hash32(arcId) % shards;

/** The index partition value of one shard of a board. */
export const boardPartition = (board: BoardRef, shard: number) => `${boardId(board)}#${shard}`;

/**
 * A string whose ascending order is the leaderboard's: points descending (fixed-width complement), then who
 * reached them first, then Arc ID. reachedAt is ISO 8601 with milliseconds (fixed width until year 10,000).
 */
export const rankKey = (s: Standing) =>
  `${String(MAX_POINTS - s.points).padStart(POINTS_WIDTH, '0')}#${s.reachedAt}#${s.arcId}`;

/** The lowest rank key of every standing with `points` (the start of their tie group). */
export const tieStart = (points: number) => `${String(MAX_POINTS - points).padStart(POINTS_WIDTH, '0')}#`;

/** The index attributes of a total: on its board (shard partition and order key) when points > 0, else off. */
export const boardAttributes = (board: BoardRef, s: Standing) => {
  const on = s.points > 0;
  return {
    [boardIndex(board).attribute]: on ? boardPartition(board, shardOf(s.arcId, BOARD_SHARDS)) : undefined,
    rankKey: on ? rankKey(s) : undefined,
  };
};

/** A node of the score tree: at level l, node n holds the counters of scores n·64^(l+1) … (n+1)·64^(l+1)−1. */
export interface TreeNode {
  level: number;
  node: number;
}

/** The sort key of every counter item (and of no other item of the play table). */
export const COUNTER_SK = 'RANK';

/** The key of one copy of a node's counter item. */
export const counterKey = (board: BoardRef, { level, node }: TreeNode, shard: number) => ({
  pk: `RANK#${boardId(board)}#${level}#${node}#${shard}`,
  sk: COUNTER_SK,
});

const scale = (level: number) => FANOUT ** level;

/** The node holding `points` at `level`, and its digit there (exact: divisions by powers of two). */
export const pathAt = (points: number, level: number) => ({
  node: Math.floor(points / scale(level + 1)),
  digit: Math.floor(points / scale(level)) % FANOUT,
});

/**
 * The counter changes of a total moving from `from` to `to` points (0: off the board): −1 on the old score's
 * path, +1 on the new one's, by node. Digit 0 has no counter: `count(> v)` never reads it, and the select
 * derives it from the node's total, so a low score touches only the levels where its digits are non-zero.
 */
export const counterMoves = (from: number, to: number): Array<TreeNode & { digits: Map<number, number> }> => {
  const moves = new Map<string, TreeNode & { digits: Map<number, number> }>();
  if (from > 0) addPath(moves, {}, '', from, LEVELS, -1, false);
  if (to > 0) addPath(moves, {}, '', to, LEVELS, +1, false);
  return changed(moves);
};

/**
 * Adds `delta` on `value`'s path through a tree, by node: `levels` levels, digit 0 skipped (no counter) except
 * at level 0 when `zeroAtLevel0`. `prefix` tells trees apart in `moves`, `extra` goes with each of the tree's moves.
 */
const addPath = <E extends object>(
  moves: Map<string, TreeNode & E & { digits: Map<number, number> }>,
  extra: E,
  prefix: string,
  value: number,
  levels: number,
  delta: number,
  zeroAtLevel0: boolean,
) => {
  for (let level = 0; level < levels; level++) {
    const { node, digit } = pathAt(value, level);
    if (digit === 0 && !(zeroAtLevel0 && level === 0)) continue;
    const id = `${prefix}${level}#${node}`;
    const move = moves.get(id) ?? { ...extra, level, node, digits: new Map<number, number>() };
    move.digits.set(digit, (move.digits.get(digit) ?? 0) + delta);
    moves.set(id, move);
  }
};

/** The moves whose digits changed (a −1 and a +1 on one digit cancel out). */
const changed = <M extends { digits: Map<number, number> }>(moves: Map<string, M>): M[] =>
  [...moves.values()]
    .map((m) => ({ ...m, digits: new Map([...m.digits].filter(([, d]) => d !== 0)) }))
    .filter((m) => m.digits.size > 0);

/** The highest level at which a score (> 0) has a non-zero digit: its highest counter (0 for scores under 64). */
export const topLevel = (points: number) => {
  let level = 0;
  while (level < LEVELS - 1 && points >= scale(level + 1)) level++;
  return level;
};

/**
 * The key of a board's height: the highest `topLevel` of any score ever on it (never lowered). Every counter
 * above it is zero, so a count reads the levels up to it only: 4 levels × 22 copies = 88 keys for scores under
 * 16.7M, not 198. Stored as the set of top levels scores have reached (`levels`, a number set): a write ADDs
 * its level to the set, which never fails, never lowers the height and merges with another player's write in
 * the same transaction (the union). Its sort key is not COUNTER_SK: it is no counter.
 */
export const heightKey = (board: BoardRef) => ({ pk: `RANK#${boardId(board)}#HEIGHT`, sk: 'HEIGHT' });

/** A board's height as read (`heightKey`'s item; null when absent: nothing was ever on the board). */
export const heightOf = (item: Record<string, unknown> | undefined): number | null => {
  const levels = item?.levels;
  return levels instanceof Set && levels.size > 0 ? Math.max(...[...levels].map(Number)) : null;
};

/**
 * The nodes whose counters answer `count(> points)`: the node on the score's path at every level, up to the
 * board's height when it is known (undefined: every level).
 */
export const countNodes = (points: number, height?: number): TreeNode[] =>
  Array.from({ length: height === undefined ? LEVELS : Math.min(LEVELS - 1, height) + 1 }, (_, level) => ({
    level,
    node: pathAt(points, level).node,
  }));

/** Counters of a node (summed over its copies) by digit 1–63. */
export type Counters = ReadonlyMap<number, number>;

/** Standings with more than `points`, from the counters of `countNodes(points, height)`. */
export const countAbove = (points: number, counters: (n: TreeNode) => Counters, height?: number): number => {
  let above = 0;
  for (const n of countNodes(points, height)) {
    const { digit } = pathAt(points, n.level);
    for (const [d, c] of counters(n)) if (d > digit) above += c;
  }
  return above;
};

/**
 * Standings with exactly `points`, from the counters of `countNodes(points, height)` of one copy (or summed): the
 * counter of the score's digit at level 0, or, when that digit is 0 (no counter), the count of its node less
 * the node's other digits, the node's count found the same way one level up.
 */
export const countAt = (points: number, counters: (n: TreeNode) => Counters): number => {
  const within = (level: number): number => {
    const { node, digit } = pathAt(points, level);
    const c = counters({ level, node });
    if (digit !== 0) return c.get(digit) ?? 0;
    if (level === LEVELS - 1) return 0;
    let others = 0;
    for (const v of c.values()) others += v;
    return within(level + 1) - others;
  };
  return points > 0 ? within(0) : 0;
};

/**
 * The tie tree: under each score of a board, a 64-ary tree of counters over the minute its players reached it,
 * so that a rank counts the players tied with it who reached the score in an earlier minute without reading
 * them. Only players who reached the same score in the same minute are told apart by the index partitions
 * (`around`). Minutes since the day's start on a day board (2 levels: 4,096 minutes), since 2026-01-01 on the
 * all-time board (4 levels: 31.9 years); a time outside the range is clamped to its end, which keeps the
 * order (the clamped players form one minute's group, still ordered by the index).
 */
/**
 * Copies of each tie-tree item: 8, not 22, because every rank read sums a tie tree's copies (16 keys on a day
 * board, in one BatchGetItem) while only moves into or out of one score write its tree: a copy stays under
 * DynamoDB's 1,000 write units a second up to ~3,600 moves a second at a single score (docs/leaderboards.md §3).
 */
export const TIE_SHARDS = 8;

/**
 * The tie-tree copy of a player: its score-tree copy mod TIE_SHARDS, so that players of a batch who share a
 * score-tree copy share their tie-tree copies too and pack into fewer transactions (copies 0–5 take 3/22 of the
 * players each, 6–7 take 2/22).
 */
export const tieShardOf = (arcId: string) => shardOf(arcId, TREE_SHARDS) % TIE_SHARDS;

const TIE_EPOCH = Date.parse('2026-01-01T00:00:00.000Z');
const tieLevels = (board: BoardRef) => (board.kind === 'day' ? 2 : 4);

const tieBase = (board: BoardRef) =>
  board.kind === 'day' ? Date.parse(`${board.day}T00:00:00.000Z`) : TIE_EPOCH;

/** The tie tree's time of a reach instant (ISO) on a board: whole minutes from the board's base, clamped. */
export const tieMinute = (board: BoardRef, reachedAt: string): number => {
  const minutes = Math.floor((Date.parse(reachedAt) - tieBase(board)) / 60_000);
  if (!Number.isFinite(minutes) || minutes < 0) return 0;
  return Math.min(minutes, scale(tieLevels(board)) - 1);
};

/** The first instant (ISO) of a tie-tree minute: the lowest reachedAt of that minute's players. */
export const tieMinuteStart = (board: BoardRef, minute: number) =>
  new Date(tieBase(board) + minute * 60_000).toISOString();

/** The key of one copy of a node of the tie tree of `points` on a board. */
export const tieKey = (board: BoardRef, points: number, { level, node }: TreeNode, shard: number) => ({
  pk: `RANK#${boardId(board)}#T${points}#${level}#${node}#${shard}`,
  sk: COUNTER_SK,
});

/**
 * The tie-tree counter changes of a standing leaving `from` and arriving at `to` (either absent or at 0 points:
 * off the board), by tree (score) and node. Level 0 counts every minute digit, 0 included (the rank reads a
 * copy's count of one minute there); above it digit 0 has no counter, as in the score tree.
 */
export const tieMoves = (
  board: BoardRef,
  from: Standing | undefined,
  to: Standing | undefined,
): Array<TreeNode & { points: number; digits: Map<number, number> }> => {
  const moves = new Map<string, TreeNode & { points: number; digits: Map<number, number> }>();
  for (const [s, delta] of [
    [from, -1],
    [to, +1],
  ] as const)
    if (s && s.points > 0)
      addPath(
        moves,
        { points: s.points },
        `${s.points}#`,
        tieMinute(board, s.reachedAt),
        tieLevels(board),
        delta,
        true,
      );
  return changed(moves);
};

/**
 * The tie-tree nodes a rank of a standing reached at `minute` reads: the node on its path at every level up to
 * the highest where a minute after it but not after `bound` (the latest minute any player can have reached a
 * score at) differs from it: above that, every later player has its digits.
 */
export const tieNodes = (board: BoardRef, minute: number, bound: number): TreeNode[] => {
  let top = 0;
  for (let level = 1; level < tieLevels(board); level++)
    if (Math.floor(minute / scale(level)) !== Math.floor(Math.max(minute, bound) / scale(level))) top = level;
  return Array.from({ length: top + 1 }, (_, level) => ({ level, node: pathAt(minute, level).node }));
};

/** Players tied at a score who reached it in a later minute than `minute`, from `tieNodes`' counters. */
export const countLater = (
  minute: number,
  nodes: TreeNode[],
  counters: (n: TreeNode) => Counters,
): number => {
  let later = 0;
  for (const n of nodes) {
    const { digit } = pathAt(minute, n.level);
    for (const [d, c] of counters(n)) if (d > digit) later += c;
  }
  return later;
};

/** Players tied at a score who reached it in the minute `minute`: the level-0 counter of its digit. */
export const countInMinute = (minute: number, counters: (n: TreeNode) => Counters): number => {
  const { node, digit } = pathAt(minute, 0);
  return counters({ level: 0, node }).get(digit) ?? 0;
};

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Highest score first, then who reached it first, then Arc ID: the rank key's order (code units, as DynamoDB). */
export const byRank = (a: Standing, b: Standing) =>
  b.points - a.points || compare(a.reachedAt, b.reachedAt) || compare(a.arcId, b.arcId);
