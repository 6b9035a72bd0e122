import { isConditionFailure } from '../adapters/dynamodb.js';
import type { AuthContext } from '../core/auth.js';
import { AppError } from '../core/errors.js';
import { requireOwnedGame } from '../games/index.js';
import { outboxItem } from '../outbox/index.js';
import { playKeys } from './keys.js';
import { type BoardRef, entryShard } from './rank-index.js';
import { boardMove } from './rank-writes.js';
import {
  getItem,
  getItems,
  itemKey,
  playTable,
  type TransactItem,
  transact,
  updateExpression,
} from './repository.js';
import { markedPeriod, removeFromEntry, tournamentPlayKeys } from './tournament-entries.js';

/**
 * A total losing `points`, with its move down its board (it keeps when it reached its score; at 0 it leaves
 * the board), conditional on the points read.
 */
const removeFrom = (
  board: BoardRef,
  key: { pk: string; sk: string },
  arcId: string,
  total: Record<string, unknown> | undefined,
  points: number,
  now: string,
): TransactItem[] => {
  const read = {
    arcId,
    points: Number(total?.points ?? 0),
    reachedAt: String(total?.reachedAt ?? now),
    shard: entryShard(board, total),
  };
  // A move down stays in its shard and never raises the height: no meta item to read or write.
  const move = boardMove(board, read, { ...read, points: read.points - points });
  return [
    {
      Update: {
        TableName: playTable(),
        Key: key,
        UpdateExpression: updateExpression({
          add: ['points :minus'],
          set: ['updatedAt = :now', ...move.set],
          remove: move.remove,
        }),
        ConditionExpression: move.condition,
        ExpressionAttributeValues: { ':minus': -points, ':now': now, ...move.values },
      },
    },
    ...move.counters,
  ];
};

const MAX_ATTEMPTS = 6;

/**
 * Invalidate one session exactly once: its status flips and exactly its points leave the day total, the
 * all-time total and so the leaderboards, in one transaction conditional on the points read. A concurrent save
 * fails that condition, and the session is read again.
 */
const invalidateOne = async (gameId: string, sessionId: string, now: string) => {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const session = await getItem(playKeys.session(gameId, sessionId));
    if (!session) return { outcome: 'notFound' as const };
    if (session.status === 'invalidated') return { outcome: 'already' as const };
    const points = Number(session.points ?? 0);
    const pending = Number(session.pendingPoints ?? 0);
    const arcId = String(session.arcId);
    const day = String(session.day);
    const TableName = playTable();
    const dayKey = playKeys.day(gameId, arcId, day);
    const allTimeKey = playKeys.allTime(gameId, arcId);
    // The tournament periods the session counted into (its marks), with the points it counted into each.
    const marks = Object.entries(session).flatMap(([name, value]) => {
      const run = markedPeriod(name);
      return run && Number(value) > 0 ? [{ run, counted: Number(value) }] : [];
    });
    const entryKey = (run: { tournamentId: string; period: string }) =>
      tournamentPlayKeys.entry(gameId, arcId, run.tournamentId, run.period);
    const totals =
      points > 0 ? await getItems([dayKey, allTimeKey, ...marks.map((m) => entryKey(m.run))]) : new Map();
    try {
      await transact([
        {
          Update: {
            TableName,
            Key: playKeys.session(gameId, sessionId),
            UpdateExpression:
              'SET #status = :inv, invalidatedPoints = :p, invalidatedAt = :now, updatedAt = :now, points = :zero, pendingPoints = :zero',
            ConditionExpression: '#status <> :inv AND points = :p AND pendingPoints = :pending',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':inv': 'invalidated',
              ':p': points,
              ':pending': pending,
              ':now': now,
              ':zero': 0,
            },
          },
        },
        ...(points > 0
          ? [
              ...removeFrom(
                { kind: 'day', gameId, day },
                dayKey,
                arcId,
                totals.get(itemKey(dayKey)),
                points,
                now,
              ),
              ...removeFrom(
                { kind: 'all', gameId },
                allTimeKey,
                arcId,
                totals.get(itemKey(allTimeKey)),
                points,
                now,
              ),
              ...marks.flatMap(({ run, counted }) =>
                removeFromEntry(
                  gameId,
                  arcId,
                  sessionId,
                  counted,
                  run,
                  totals.get(itemKey(entryKey(run))),
                  now,
                ),
              ),
            ]
          : []),
        outboxItem('session.invalidated', gameId, { sessionId, arcId, reason: null }),
      ]);
      return { outcome: 'invalidated' as const, arcId, points };
    } catch (error) {
      if (!isConditionFailure(error) && (error as { name?: string }).name !== 'TransactionConflictException')
        throw error;
    }
  }
  throw new AppError('CONFLICT', `Session ${sessionId} is changing too fast to invalidate; retry`);
};

/** POST /play/dev/invalidate-sessions. */
export const invalidateSessions = async (
  auth: AuthContext,
  input: { gameId: string; sessionIds: string[] },
  now = new Date(),
) => {
  const game = await requireOwnedGame(auth, input.gameId);
  const ids = [...new Set(input.sessionIds)];
  // One batched read to skip the unknown and already invalidated ones without a transaction each.
  const state = await getItems(ids.map((id) => playKeys.session(game.id, id)));
  const result = {
    invalidated: [] as Array<{ sessionId: string; arcId: string; pointsRemoved: number }>,
    alreadyInvalidated: [] as string[],
    notFound: [] as string[],
  };
  await Promise.all(
    ids.map(async (sessionId) => {
      const item = state.get(itemKey(playKeys.session(game.id, sessionId)));
      const out = !item
        ? { outcome: 'notFound' as const }
        : item.status === 'invalidated'
          ? { outcome: 'already' as const }
          : await invalidateOne(game.id, sessionId, now.toISOString());
      if (out.outcome === 'notFound') result.notFound.push(sessionId);
      else if (out.outcome === 'already') result.alreadyInvalidated.push(sessionId);
      else result.invalidated.push({ sessionId, arcId: out.arcId, pointsRemoved: out.points });
    }),
  );
  for (const list of [result.alreadyInvalidated, result.notFound]) list.sort();
  result.invalidated.sort((a, b) => a.sessionId.localeCompare(b.sessionId));
  return result;
};
