// GET /play/dev/leaderboard/{gameId}: a game's daily or all-time board from its index, and one player's rank
// and neighbours on it.
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import type { AuthContext } from '../core/auth.js';
import { requireOwnedGame } from '../games/index.js';
import { resolveKnownIdentifiers } from '../user/index.js';
import { playKeys, utcDay } from './keys.js';
import { countRange, getItem, queryIndex } from './repository.js';

type Item = Record<string, NativeAttributeValue>;

interface Standing {
  arcId: string;
  points: number;
  reachedAt: string;
}

const standing = (item: Item): Standing => ({
  arcId: String(item.arcId),
  points: Number(item.points ?? 0),
  reachedAt: String(item.reachedAt ?? item.updatedAt ?? ''),
});

/** Leaderboard order: points desc, then who reached the score first, then Arc ID. */
const byRank = (a: Standing, b: Standing) =>
  b.points - a.points || a.reachedAt.localeCompare(b.reachedAt) || a.arcId.localeCompare(b.arcId);

interface Board {
  index: 'byDailyBoard' | 'byAllTimeBoard';
  key: 'boardDay' | 'boardAll';
  value: string;
}

/** The top `offset + limit` standings, reading on through any tie that straddles the page end. */
const top = async (board: Board, wanted: number): Promise<Standing[]> => {
  const read: Standing[] = [];
  let start: Item | undefined;
  do {
    const page = await queryIndex({
      index: board.index,
      key: board.key,
      value: board.value,
      forward: false,
      limit: 100,
      start,
    });
    read.push(...page.items.map(standing));
    start = page.next;
    const last = read[wanted - 1];
    const after = read[read.length - 1];
    if (last && after && after.points < last.points) break;
  } while (start);
  return read.filter((s) => s.points > 0).sort(byRank);
};

/** One player's rank (1-based) and up to two neighbours each side, without reading the whole board. */
const around = async (board: Board, arcId: string, points: number) => {
  const [above, tied, nearAbove, nearBelow] = await Promise.all([
    countRange(board.index, board.key, board.value, { op: '>', value: points }),
    queryIndex({
      index: board.index,
      key: board.key,
      value: board.value,
      range: { op: '=', value: points },
      forward: false,
    }),
    queryIndex({
      index: board.index,
      key: board.key,
      value: board.value,
      range: { op: '>', value: points },
      forward: true,
      limit: 2,
    }),
    queryIndex({
      index: board.index,
      key: board.key,
      value: board.value,
      range: { op: '<', value: points },
      forward: false,
      limit: 2,
    }),
  ]);
  const ties = tied.items.map(standing).sort(byRank);
  const position = ties.findIndex((s) => s.arcId === arcId);
  const rank = above + position + 1;
  const before = nearAbove.items.map(standing).sort(byRank);
  const window = [
    ...before,
    ...ties,
    ...nearBelow.items
      .map(standing)
      .filter((s) => s.points > 0)
      .sort(byRank),
  ];
  const firstRank = above - before.length + 1;
  const me = before.length + position;
  const neighbours = window
    .map((s, i) => ({ rank: firstRank + i, arcId: s.arcId, points: s.points }))
    .slice(Math.max(0, me - 2), me + 3)
    .filter((s) => s.arcId !== arcId);
  return { rank, neighbours };
};

/** GET /play/dev/leaderboard/{gameId}. */
export const devLeaderboard = async (
  auth: AuthContext,
  gameId: string,
  query: {
    period: 'daily' | 'alltime';
    day?: string | undefined;
    limit: number;
    offset: number;
    player?: string | undefined;
  },
  now = new Date(),
) => {
  const game = await requireOwnedGame(auth, gameId);
  const day = query.period === 'daily' ? (query.day ?? utcDay(now)) : null;
  const board: Board = day
    ? { index: 'byDailyBoard', key: 'boardDay', value: playKeys.boardDay(game.id, day) }
    : { index: 'byAllTimeBoard', key: 'boardAll', value: game.id };
  const standings = await top(board, query.offset + query.limit);
  const entries = standings
    .slice(query.offset, query.offset + query.limit)
    .map((s, i) => ({ rank: query.offset + i + 1, arcId: s.arcId, points: s.points }));
  if (!query.player) return { period: query.period, day, entries };
  const arcId = (await resolveKnownIdentifiers([query.player]))[query.player] ?? null;
  const item = arcId
    ? await getItem(day ? playKeys.day(game.id, arcId, day) : playKeys.allTime(game.id, arcId))
    : undefined;
  const points = Number(item?.points ?? 0);
  if (!arcId || points <= 0) {
    return {
      period: query.period,
      day,
      entries,
      player: { playerId: query.player, arcId, rank: null, points: 0, neighbours: [] },
    };
  }
  const { rank, neighbours } = await around(board, arcId, points);
  return {
    period: query.period,
    day,
    entries,
    player: { playerId: query.player, arcId, rank, points, neighbours },
  };
};
