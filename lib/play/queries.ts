import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import type { AuthContext } from '../core/auth.js';
import { AppError } from '../core/errors.js';
import { requireOwnedGame } from '../games/index.js';
import { resolveKnownIdentifiers } from '../user/index.js';
import { playKeys, utcDay } from './keys.js';
import { countRange, getItem, getItems, itemKey, queryIndex } from './repository.js';

const CURSOR_KEYS = new Set(['pk', 'sk', 'sessionGame', 'sessionSort', 'riskyGame', 'riskScore']);

type Item = Record<string, NativeAttributeValue>;

/** GET /play/dev/points: today's and all-time points of up to 100 players (two batched reads). */
export const devPoints = async (
  auth: AuthContext,
  query: { gameId: string; playerIds: string[] },
  now = new Date(),
) => {
  const game = await requireOwnedGame(auth, query.gameId);
  const mapping = await resolveKnownIdentifiers(query.playerIds);
  const day = utcDay(now);
  const known = [...new Set(Object.values(mapping).filter((v): v is string => v !== null))];
  const items = await getItems(
    known.flatMap((arcId) => [playKeys.day(game.id, arcId, day), playKeys.allTime(game.id, arcId)]),
  );
  const pointsOf = (key: { pk: string; sk: string }) => Number(items.get(itemKey(key))?.points ?? 0);
  return {
    day,
    playerIdToArcId: mapping,
    points: query.playerIds.map((playerId) => {
      const arcId = mapping[playerId] ?? null;
      return {
        playerId,
        arcId,
        today: arcId ? pointsOf(playKeys.day(game.id, arcId, day)) : 0,
        allTime: arcId ? pointsOf(playKeys.allTime(game.id, arcId)) : 0,
      };
    }),
  };
};

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

const encodeCursor = (key: Item | undefined) =>
  key ? Buffer.from(JSON.stringify(key)).toString('base64url') : null;
const decodeCursorError = () =>
  new AppError('VALIDATION_ERROR', 'Invalid cursor', [
    { path: 'cursor', message: 'not a cursor from this API' },
  ]);
const decodeCursor = (cursor: string | undefined): Item | undefined => {
  if (!cursor) return undefined;
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    const valid =
      typeof value === 'object' &&
      value !== null &&
      !Array.isArray(value) &&
      Object.entries(value).every(
        ([k, v]) => CURSOR_KEYS.has(k) && (typeof v === 'string' || typeof v === 'number'),
      );
    if (valid) return value as Item;
  } catch {
    // fall through to the error below
  }
  throw decodeCursorError();
};

/** A stored session as the API shows it. */
export const sessionView = (item: Item) => ({
  sessionId: String(item.sessionId),
  gameId: String(item.gameId),
  arcId: String(item.arcId),
  source: item.source === 'sdk' ? ('sdk' as const) : ('backend' as const),
  status: (['active', 'committed', 'invalidated'].includes(String(item.status)) ? item.status : 'active') as
    | 'active'
    | 'committed'
    | 'invalidated',
  day: String(item.day),
  points: Number(item.points ?? 0),
  pendingPoints: Number(item.pendingPoints ?? 0),
  saves: Number(item.saves ?? 0),
  capHits: Number(item.capHits ?? 0),
  riskScore: Number(item.riskScore ?? 0),
  riskReasons: Array.isArray(item.riskReasons) ? item.riskReasons.map(String) : [],
  createdAt: String(item.createdAt),
  updatedAt: String(item.updatedAt ?? item.createdAt),
  invalidatedPoints: item.invalidatedPoints === undefined ? null : Number(item.invalidatedPoints),
});

/**
 * Read pages of an index until `limit` items pass the filter (DynamoDB applies Limit before filters), returning
 * the cursor of the last item returned.
 */
const filteredPage = async (
  base: Omit<Parameters<typeof queryIndex>[0], 'start' | 'limit'>,
  limit: number,
  cursor: string | undefined,
) => {
  const out: Item[] = [];
  let start = decodeCursor(cursor);
  let next: Item | undefined;
  do {
    const page = await queryIndex({ ...base, limit: limit - out.length, start }).catch((error: unknown) => {
      // A cursor of the right shape but for another index or game.
      if ((error as { name?: string }).name === 'ValidationException') throw decodeCursorError();
      throw error;
    });
    out.push(...page.items);
    start = page.next;
    next = page.next;
  } while (start && out.length < limit);
  return { items: out, nextCursor: encodeCursor(next) };
};

/** GET /play/dev/sessions/{gameId}: newest first, optional player and status filters, cursor pages. */
export const devSessions = async (
  auth: AuthContext,
  gameId: string,
  query: {
    limit: number;
    cursor?: string | undefined;
    player?: string | undefined;
    status?: string | undefined;
  },
) => {
  const game = await requireOwnedGame(auth, gameId);
  const arcId = query.player ? (await resolveKnownIdentifiers([query.player]))[query.player] : undefined;
  if (query.player && !arcId) return { data: [], meta: { limit: query.limit, nextCursor: null } };
  const filters: string[] = [];
  const values: Item = {};
  if (arcId) {
    filters.push('arcId = :a');
    values[':a'] = arcId;
  }
  if (query.status) {
    filters.push('#status = :s');
    values[':s'] = query.status;
  }
  const { items, nextCursor } = await filteredPage(
    {
      index: 'byGameSessions',
      key: 'sessionGame',
      value: game.id,
      forward: false,
      ...(filters.length
        ? {
            filter: {
              expression: filters.join(' AND '),
              values,
              ...(query.status ? { names: { '#status': 'status' } } : {}),
            },
          }
        : {}),
    },
    query.limit,
    query.cursor,
  );
  return { data: items.map(sessionView), meta: { limit: query.limit, nextCursor } };
};

/** GET /play/dev/risky-sessions/{gameId}: the sparse index of flagged sessions, highest risk first. */
export const riskySessions = async (
  auth: AuthContext,
  gameId: string,
  query: { limit: number; cursor?: string | undefined },
) => {
  const game = await requireOwnedGame(auth, gameId);
  const { items, nextCursor } = await filteredPage(
    { index: 'byRiskySessions', key: 'riskyGame', value: game.id, forward: false },
    query.limit,
    query.cursor,
  );
  return { data: items.map(sessionView), meta: { limit: query.limit, nextCursor } };
};
