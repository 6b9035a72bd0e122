// The rank index of a leaderboard (docs/leaderboards.md), pure: which boards a total is on, the order key of
// a standing, its shard at the board's width, and the score tree's counters a change of points moves. ranks/writes.ts turns moves into
// transaction items, ranks/reads.ts answers ranks, pages and neighbours from them.
import { createHash } from 'node:crypto';

/** Children per node of the score tree: a node's counters fit one item under 1 KB (one write unit). */
export const FANOUT = 64;
/** Levels of the score tree: 64^9 = 2^54 covers every safe integer score. */
export const LEVELS = 9;
/**
 * A board's width: how many partitions its index has and how many copies each counter item of its score tree
 * has (a player's entry and its counters are in the same shard). It grows with the board, never shrinks, and
 * needs no rebuild: every move rewrites the player's entry anyway, so a move puts it in the shard of the
 * current width and takes its counters out of the shard it was in (read from its entry's partition). Readers
 * read every shard below the widest width the board ever had. Widths by players on the board: 1 up to 5,000,
 * then doubling, to 22 from 80,000 (docs/leaderboards.md §1, §3).
 */
export const WIDTHS = [1, 2, 4, 8, 16, 22] as const;
/** The widest a board grows: at 10,000 updates a second all in one tree node, a copy takes 909 write units a second. */
export const MAX_WIDTH = 22;
/** Players per shard before a board widens. */
export const PLAYERS_PER_SHARD = 5_000;

/**
 * Copies of a counter item below which no board goes, whatever its width: a batch save's transactions run in
 * parallel, each writing its players' counter ADDs merged into one copy of its own (saves/groups.ts), so that two
 * transactions of one batch never write the same item (DynamoDB would cancel one: TransactionConflict). A batch of
 * 100 players takes 4–5 transactions; 8 leaves room, and a rank read of a small board reads 8 keys per level.
 */
export const MIN_COPIES = 8;

/** The copies of a board's counter items a read sums: every copy below them may hold counts. */
export const counterCopies = (meta: { recorded: number }) => Math.max(meta.recorded, MIN_COPIES);

/** The width a board of `players` players needs. */
export const widthFor = (players: number): number =>
  WIDTHS.find((w) => w * PLAYERS_PER_SHARD >= players) ?? MAX_WIDTH;

const MAX_POINTS = Number.MAX_SAFE_INTEGER;
const POINTS_WIDTH = String(MAX_POINTS).length;

/** A leaderboard: a game's board of one UTC day, its all-time board, or the board of a tournament's period. */
export type BoardRef =
  | { kind: 'day'; gameId: string; day: string }
  | { kind: 'all'; gameId: string }
  | { kind: 'tournament'; gameId: string; tournamentId: string; period: string };

/** Where a total stands on its board: points > 0, reached at (ISO) — ties go to who reached it first. */
export interface Standing {
  arcId: string;
  points: number;
  reachedAt: string;
  /** The shard its entry and counters are in, as read (undefined: off the board, or not read). */
  shard?: number | undefined;
}

/**
 * The index a board's entries live in, and the partition attribute naming it. A tournament period's board shares
 * the daily boards' index (its partitions are named apart: `boardId`), so tournaments add no index to the table.
 */
export const boardIndex = (board: BoardRef) =>
  board.kind === 'all'
    ? ({ index: 'byAllTimeRank', attribute: 'rankAll' } as const)
    : ({ index: 'byDayRank', attribute: 'rankDay' } as const);

const boardId = (board: BoardRef) => {
  switch (board.kind) {
    case 'day':
      return `${board.gameId}#${board.day}`;
    case 'all':
      return board.gameId;
    case 'tournament':
      return `${board.gameId}#T${board.tournamentId}#${board.period}`;
  }
};

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

/** The index attributes of a total in `shard`: on its board (shard partition and order key) when points > 0, else off. */
export const boardAttributes = (board: BoardRef, s: Standing, shard: number) => {
  const on = s.points > 0;
  return {
    [boardIndex(board).attribute]: on ? boardPartition(board, shard) : undefined,
    rankKey: on ? rankKey(s) : undefined,
  };
};

/** The shard a total's entry is in (from its index partition attribute; undefined when off the board). */
export const entryShard = (
  board: BoardRef,
  item: Record<string, unknown> | undefined,
): number | undefined => {
  const partition = item?.[boardIndex(board).attribute];
  if (typeof partition !== 'string') return undefined;
  const shard = Number(partition.slice(partition.lastIndexOf('#') + 1));
  return Number.isInteger(shard) && shard >= 0 ? shard : undefined;
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
  if (from > 0) addPath(moves, from, -1);
  if (to > 0) addPath(moves, to, +1);
  return changed(moves);
};

/** Adds `delta` on `points`' path through the score tree, by node (digit 0 skipped: no counter). */
const addPath = (
  moves: Map<string, TreeNode & { digits: Map<number, number> }>,
  points: number,
  delta: number,
) => {
  for (let level = 0; level < LEVELS; level++) {
    const { node, digit } = pathAt(points, level);
    if (digit === 0) continue;
    const id = `${level}#${node}`;
    const move = moves.get(id) ?? { level, node, digits: new Map<number, number>() };
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
 * The key of a board's meta item: its height, widths and the estimate of its players. The height is the highest
 * `topLevel` of any score ever on the board (never lowered): every counter above it is zero, so a count reads the
 * levels up to it only (4 levels × the width for scores under 16.7M, not 9). Stored as the set of top levels
 * scores have reached (`levels`, a number set): a write ADDs its level, which never fails, never lowers the height
 * and merges with another player's write in the same transaction (the union). `widths` is the set of widths the
 * board had (the current one is the largest), `players` an estimate of the players who entered it (§1), on
 * an all-time board `dayWidths` the widths its day boards reached, from which a new day board starts, and `ties`
 * the scores rank reads found large tie groups at (a hint for later reads). Its sort key is not COUNTER_SK: it
 * is no counter.
 */
export const metaKey = (board: BoardRef) => ({ pk: `RANK#${boardId(board)}#HEIGHT`, sk: 'HEIGHT' });

/** A board's meta item as read. */
export interface BoardMeta {
  /** The height (null when no score was ever on the board). */
  height: number | null;
  /** The width a move puts its entry at: the board's, or for a day board the widest of its game's day boards. */
  width: number;
  /** The widest width recorded on the board's own item (1 when none): readers read this many shards. */
  recorded: number;
  /** The estimate of players who entered the board. */
  players: number;
  /** On an all-time board: the widest width any of its day boards reached (1 when none). */
  dayWidth: number;
  /**
   * Scores at which a rank read found a large tie group (more than a page of them ahead of a player in a shard):
   * a rank read at one of them counts its ties ahead in its first wave (ranks/around.ts `around`). Written by reads.
   */
  ties: ReadonlySet<number>;
}

const numbers = (value: unknown): number[] => (value instanceof Set ? [...value].map(Number) : []);

/**
 * A board's meta from its item (undefined: nothing on the board yet); a day board's also from its game's
 * all-time item, so that a new day board of a busy game starts as wide as its days grew before.
 */
export const metaOf = (
  item: Record<string, unknown> | undefined,
  allTime?: Record<string, unknown> | undefined,
): BoardMeta => {
  const levels = numbers(item?.levels);
  const recorded = Math.max(1, ...numbers(item?.widths));
  const dayWidth = Math.max(1, ...numbers(item?.dayWidths));
  return {
    height: levels.length > 0 ? Math.max(...levels) : null,
    width: Math.max(recorded, ...(allTime ? numbers(allTime.dayWidths) : [])),
    recorded,
    players: Number(item?.players ?? 0),
    dayWidth,
    ties: new Set(numbers(item?.ties)),
  };
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

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Highest score first, then who reached it first, then Arc ID: the rank key's order (code units, as DynamoDB). */
export const byRank = (a: Standing, b: Standing) =>
  b.points - a.points || compare(a.reachedAt, b.reachedAt) || compare(a.arcId, b.arcId);
