// Invalidating sessions (POST /play/dev/invalidate-sessions): a studio takes back a session's points, from its
// totals, its boards and the tournament entries it counted into, once (the writes: repository.ts).
import { isConditionFailure } from '../../adapters/dynamodb.js';
import type { AuthContext } from '../../core/auth.js';
import { AppError } from '../../core/errors.js';
import { requireOwnedGame } from '../../games/index.js';
import { type InsightsAdds, insightsWrite } from '../../insights/index.js';
import { outboxItem } from '../../outbox/index.js';
import { playKeys } from '../keys.js';
import { markedPeriod, removeFromEntry, tournamentPlayKeys } from '../ranks/tournament-entries.js';
import { getItem, getItems, itemKey } from '../repository.js';
import { totalLowering, writeInvalidation } from './repository.js';

const MAX_ATTEMPTS = 6;

/**
 * What an invalidation moves on the game's figures (lib/insights): a session invalidated today, and its points
 * taken off its own day's points (the day's figures stay the sum of its totals).
 */
const invalidationInsights = (gameId: string, day: string, points: number, now: string) => {
  const today = now.slice(0, 10);
  const byDay: Array<[string, InsightsAdds]> =
    today === day
      ? [[day, { invalidatedSessions: 1, points: -points }]]
      : [
          [today, { invalidatedSessions: 1 }],
          [day, { points: -points }],
        ];
  return byDay.flatMap(([d, adds]) => {
    const item = insightsWrite(gameId, d, adds);
    return item ? [item] : [];
  });
};

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
      await writeInvalidation(
        { key: playKeys.session(gameId, sessionId), points, pending, now },
        points > 0
          ? [
              ...totalLowering(
                { kind: 'day', gameId, day },
                dayKey,
                arcId,
                totals.get(itemKey(dayKey)),
                points,
                now,
              ),
              ...totalLowering(
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
          : [],
        outboxItem('session.invalidated', gameId, { sessionId, arcId, reason: null }),
        invalidationInsights(gameId, day, points, now),
      );
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
