// Moving one player's play into another's: what merging two identities of one person needs from the play domain
// (scripts/merge-identities.ts, docs/wallets.md "One identity per person"). A player's sessions move with exactly
// their points, in transactions that also move the day and all-time totals and their places on the boards (the
// score tree's counters and the boards' meta items, ranks/writes.ts), so that every invariant the save paths keep holds after each
// transaction: a total is the sum of its sessions, the counters count the totals, an invalidation of a moved
// session takes its points from the player who now holds them. The save paths are not changed.
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { dynamo, isConditionFailure } from '../adapters/dynamodb.js';
import { playKeys } from './keys.js';
import { type BoardMeta, type BoardRef, entryShard, metaKey, metaOf, type Standing } from './ranks/board.js';
import { boardMove } from './ranks/writes.js';
import { getItems, itemKey, playTable, type TransactItem, transact, updateExpression } from './repository.js';
import { groupTransaction, MAX_TRANSACTION_ITEMS } from './saves/groups.js';

type Item = Record<string, NativeAttributeValue>;

/** A player's footprint in one game: the UTC days of its day totals and sessions, and whether it has an all-time total. */
export interface GameFootprint {
  gameId: string;
  days: Set<string>;
  /** Session ids by UTC day. */
  sessions: Map<string, string[]>;
  allTime: boolean;
}

/**
 * Every game a player has totals or sessions in (a Scan of the play table filtered on the player: maintenance,
 * not a request path).
 */
export const playerFootprint = async (arcId: string): Promise<GameFootprint[]> => {
  const games = new Map<string, GameFootprint>();
  const gameOf = (gameId: string) => {
    let game = games.get(gameId);
    if (!game) {
      game = { gameId, days: new Set(), sessions: new Map(), allTime: false };
      games.set(gameId, game);
    }
    return game;
  };
  const totalPrefix = 'TOTAL#';
  let start: Item | undefined;
  do {
    const page = await dynamo().send(
      new ScanCommand({
        TableName: playTable(),
        FilterExpression: 'arcId = :a AND (begins_with(pk, :total) OR begins_with(pk, :session))',
        ProjectionExpression: 'pk, sk, gameId, sessionId, #day',
        ExpressionAttributeNames: { '#day': 'day' },
        ExpressionAttributeValues: { ':a': arcId, ':total': totalPrefix, ':session': 'SESSION#' },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    for (const item of page.Items ?? []) {
      const pk = String(item.pk);
      if (pk.startsWith(totalPrefix)) {
        // TOTAL#<gameId>#<arcId>: the game id is a UUID (no '#').
        const game = gameOf(pk.slice(totalPrefix.length).split('#')[0] ?? '');
        const sk = String(item.sk);
        if (sk === 'ALL') game.allTime = true;
        else if (sk.startsWith('DAY#')) game.days.add(sk.slice('DAY#'.length));
      } else {
        const game = gameOf(String(item.gameId));
        const day = String(item.day);
        game.days.add(day);
        game.sessions.set(day, [...(game.sessions.get(day) ?? []), String(item.sessionId)]);
      }
    }
    start = page.LastEvaluatedKey;
  } while (start);
  return [...games.values()];
};

/** A total as read: points, sessions (day totals) and when it reached its points. */
interface TotalState {
  points: number;
  sessions: number;
  reachedAt: string | undefined;
  shard: number | undefined;
}

const totalState = (board: BoardRef, item: Item | undefined): TotalState | undefined =>
  item
    ? {
        points: Number(item.points ?? 0),
        sessions: Number(item.sessions ?? 0),
        reachedAt: typeof item.reachedAt === 'string' ? item.reachedAt : undefined,
        shard: entryShard(board, item),
      }
    : undefined;

const standingOf = (arcId: string, total: TotalState | undefined): Standing | undefined =>
  total && total.points > 0
    ? { arcId, points: total.points, reachedAt: total.reachedAt ?? '', shard: total.shard }
    : undefined;

const later = (a: string | undefined, b: string | undefined) => (a && b ? (a > b ? a : b) : (a ?? b));

/**
 * A total's change by `points` and `sessions` with its board move, conditional on the points read. A total
 * losing points keeps when it reached its score (as an invalidation does); a total gaining them reached the sum
 * when its later part did (`reachedAt`).
 */
const totalMove = (input: {
  board: BoardRef;
  key: { pk: string; sk: string };
  arcId: string;
  read: TotalState | undefined;
  points: number;
  sessions: number | undefined;
  reachedAt: string | undefined;
  meta: BoardMeta;
  now: string;
}): TransactItem[] => {
  const before = input.read?.points ?? 0;
  const after = before + input.points;
  const from = standingOf(input.arcId, input.read);
  const to: Standing = { arcId: input.arcId, points: after, reachedAt: input.reachedAt ?? input.now };
  const move = boardMove(input.board, from, to, input.meta);
  const adds = ['points :delta', ...(input.sessions !== undefined ? ['sessions :sessions'] : [])];
  const sets = [
    'arcId = :a',
    'updatedAt = :now',
    ...(input.points > 0 && input.reachedAt ? ['reachedAt = :reached'] : []),
    ...move.set,
  ];
  return [
    {
      Update: {
        TableName: playTable(),
        Key: input.key,
        UpdateExpression: updateExpression({ add: adds, set: sets, remove: move.remove }),
        ConditionExpression: move.condition,
        ExpressionAttributeValues: {
          ':delta': input.points,
          ':a': input.arcId,
          ':now': input.now,
          ...(input.sessions !== undefined ? { ':sessions': input.sessions } : {}),
          ...(input.points > 0 && input.reachedAt ? { ':reached': input.reachedAt } : {}),
          ...move.values,
        },
      },
    },
    ...move.counters,
    ...move.meta,
  ];
};

/** What moved (or could not) for one (game, day). */
export interface DayMove {
  gameId: string;
  day: string;
  points: number;
  sessions: number;
  status: 'moved' | 'nothing' | 'refused';
  reason?: string;
}

/** Sessions moved per transaction at most (with the 4 totals and their counters, under 100 items). */
const SESSIONS_PER_MOVE = 10;
const MAX_ATTEMPTS = 6;

/**
 * One transaction moving `sessionIds` (some of `from`'s sessions of the day; none: the day total's session count
 * left over) from `from` to `to`: each session's owner, and exactly their points and their count from `from`'s
 * day and all-time totals to `to`'s, with both players' board moves. Returns what it moved; false when the state
 * changed since it was read (read again and retry).
 */
const moveOnce = async (
  gameId: string,
  day: string,
  from: string,
  to: string,
  sessionIds: string[],
  now: string,
): Promise<{ points: number; sessions: number } | false> => {
  const dayBoard: BoardRef = { kind: 'day', gameId, day };
  const allBoard: BoardRef = { kind: 'all', gameId };
  const keys = {
    fromDay: playKeys.day(gameId, from, day),
    toDay: playKeys.day(gameId, to, day),
    fromAll: playKeys.allTime(gameId, from),
    toAll: playKeys.allTime(gameId, to),
  };
  const sessionKeys = sessionIds.map((id) => playKeys.session(gameId, id));
  const read = await getItems([...Object.values(keys), metaKey(dayBoard), metaKey(allBoard), ...sessionKeys]);
  const sessions = sessionKeys
    .map((key) => read.get(itemKey(key)))
    .filter((s): s is Item => s !== undefined && s.arcId === from && s.day === day);
  const fromDay = totalState(dayBoard, read.get(itemKey(keys.fromDay)));
  const fromAll = totalState(allBoard, read.get(itemKey(keys.fromAll)));
  const toDay = totalState(dayBoard, read.get(itemKey(keys.toDay)));
  const toAll = totalState(allBoard, read.get(itemKey(keys.toAll)));
  const allMeta = read.get(itemKey(metaKey(allBoard)));
  const dayMeta = metaOf(read.get(itemKey(metaKey(dayBoard))), allMeta);
  const remainder = sessionIds.length === 0;
  // Once the sessions moved, the day total holds nothing they do not account for; points left there would
  // belong to sessions this move did not see, so they are refused rather than moved apart from them.
  if (remainder && (fromDay?.points ?? 0) > 0)
    throw new Error(
      `${from}'s day total of ${gameId} ${day} still holds ${fromDay?.points} points after its sessions moved: not moved`,
    );
  const points = sessions.reduce((sum, s) => sum + Number(s.points ?? 0), 0);
  const count = remainder ? (fromDay?.sessions ?? 0) : sessions.length;
  if (points === 0 && count === 0 && sessions.length === 0) return { points: 0, sessions: 0 };
  if (points > (fromDay?.points ?? 0) || points > (fromAll?.points ?? 0))
    throw new Error(
      `${from}'s totals of ${gameId} ${day} hold less than its sessions' ${points} points: not moved`,
    );
  const reached = later(toDay?.points ? toDay.reachedAt : undefined, fromDay?.reachedAt);
  const reachedAll = later(toAll?.points ? toAll.reachedAt : undefined, fromAll?.reachedAt);
  const items: TransactItem[] = [
    ...sessions.map(
      (s): TransactItem => ({
        Update: {
          TableName: playTable(),
          Key: { pk: s.pk, sk: s.sk },
          UpdateExpression: 'SET arcId = :to, mergedFrom = :from, updatedAt = :now',
          // Its points and pending points as read: a concurrent save, commit or invalidation makes this retry.
          ConditionExpression:
            'arcId = :from AND points = :p AND (attribute_not_exists(pendingPoints) OR pendingPoints = :pending)',
          ExpressionAttributeValues: {
            ':to': to,
            ':from': from,
            ':now': now,
            ':p': Number(s.points ?? 0),
            ':pending': Number(s.pendingPoints ?? 0),
          },
        },
      }),
    ),
    ...totalMove({
      board: dayBoard,
      key: keys.fromDay,
      arcId: from,
      read: fromDay,
      points: -points,
      sessions: -count,
      reachedAt: fromDay?.reachedAt,
      meta: dayMeta,
      now,
    }),
    ...totalMove({
      board: dayBoard,
      key: keys.toDay,
      arcId: to,
      read: toDay,
      points,
      sessions: count,
      reachedAt: reached,
      meta: dayMeta,
      now,
    }),
    ...(points > 0
      ? [
          ...totalMove({
            board: allBoard,
            key: keys.fromAll,
            arcId: from,
            read: fromAll,
            points: -points,
            sessions: undefined,
            reachedAt: fromAll?.reachedAt,
            meta: metaOf(allMeta),
            now,
          }),
          ...totalMove({
            board: allBoard,
            key: keys.toAll,
            arcId: to,
            read: toAll,
            points,
            sessions: undefined,
            reachedAt: reachedAll,
            meta: metaOf(allMeta),
            now,
          }),
        ]
      : []),
  ];
  // Both players' moves may add to one counter item (the same copy of a node): one item, deltas summed.
  const { items: merged } = groupTransaction([{ items }]);
  if (merged.length > MAX_TRANSACTION_ITEMS)
    throw new Error(`moving ${sessions.length} sessions needs ${merged.length} transaction items`);
  try {
    await transact(merged);
    return { points, sessions: count };
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/** Delete a total left at nothing (no points, no sessions), conditional on that. */
const dropEmpty = async (key: { pk: string; sk: string }) => {
  try {
    await transact([
      {
        Delete: {
          TableName: playTable(),
          Key: key,
          ConditionExpression:
            '(attribute_not_exists(points) OR points = :zero) AND (attribute_not_exists(sessions) OR sessions = :zero)',
          ExpressionAttributeValues: { ':zero': 0 },
        },
      },
    ]);
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};

/**
 * Move `from`'s play of one game and UTC day to `to`: its sessions of that day (a few per transaction, each
 * with exactly its points), then whatever the day total holds beyond them, then the emptied totals are deleted.
 * Safe to re-run: a moved session is no longer `from`'s, and a day already moved has nothing left.
 */
export const movePlayerDay = async (
  gameId: string,
  day: string,
  from: string,
  to: string,
  sessionIds: string[],
  now: string,
): Promise<DayMove> => {
  const total = { points: 0, sessions: 0 };
  const chunks: string[][] = [];
  for (let i = 0; i < sessionIds.length; i += SESSIONS_PER_MOVE)
    chunks.push(sessionIds.slice(i, i + SESSIONS_PER_MOVE));
  chunks.push([]);
  try {
    for (const chunk of chunks) {
      let moved: { points: number; sessions: number } | false = false;
      for (let attempt = 0; attempt < MAX_ATTEMPTS && moved === false; attempt++)
        moved = await moveOnce(gameId, day, from, to, chunk, now);
      if (moved === false) throw new Error(`${gameId} ${day} kept changing; run again`);
      total.points += moved.points;
      total.sessions += moved.sessions;
    }
  } catch (error) {
    return { gameId, day, ...total, status: 'refused', reason: (error as Error).message };
  }
  await dropEmpty(playKeys.day(gameId, from, day));
  return { gameId, day, ...total, status: total.points + total.sessions > 0 ? 'moved' : 'nothing' };
};

/**
 * After every day of a game moved: what is left of `from`'s all-time total (none when its days summed to it) is
 * moved too, and the emptied total deleted. Not called while a day of the game is left on `from`.
 */
export const moveAllTimeRemainder = async (gameId: string, from: string, to: string, now: string) => {
  const allBoard: BoardRef = { kind: 'all', gameId };
  const fromKey = playKeys.allTime(gameId, from);
  const toKey = playKeys.allTime(gameId, to);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const read = await getItems([fromKey, toKey, metaKey(allBoard)]);
    const fromAll = totalState(allBoard, read.get(itemKey(fromKey)));
    const toAll = totalState(allBoard, read.get(itemKey(toKey)));
    const points = fromAll?.points ?? 0;
    if (points <= 0) {
      await dropEmpty(fromKey);
      return 0;
    }
    const meta = metaOf(read.get(itemKey(metaKey(allBoard))));
    const items = [
      ...totalMove({
        board: allBoard,
        key: fromKey,
        arcId: from,
        read: fromAll,
        points: -points,
        sessions: undefined,
        reachedAt: fromAll?.reachedAt,
        meta,
        now,
      }),
      ...totalMove({
        board: allBoard,
        key: toKey,
        arcId: to,
        read: toAll,
        points,
        sessions: undefined,
        reachedAt: later(toAll?.points ? toAll.reachedAt : undefined, fromAll?.reachedAt),
        meta,
        now,
      }),
    ];
    try {
      await transact(groupTransaction([{ items }]).items);
      await dropEmpty(fromKey);
      return points;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  throw new Error(`${from}'s all-time total of ${gameId} kept changing; run again`);
};
