// Committing a client SDK session (docs/play-protocol.md §4): POST /play/commit moves its pending points into the
// day and all-time totals once, and seals it.
import { isConditionFailure } from '../../adapters/dynamodb.js';
import type { AuthContext } from '../../core/auth.js';
import { AppError } from '../../core/errors.js';
import { capOrDefault } from '../../games/index.js';
import { activityAdds, type InsightsAdds, insightsWrite, sumAdds } from '../../insights/index.js';
import { playKeys, utcDay } from '../keys.js';
import { type BoardRef, entryShard, metaKey, metaOf } from '../ranks/board.js';
import {
  entryItems,
  periodStateKeys,
  periodStates,
  planEntry,
  type RunningPeriod,
  type RunningPeriods,
  sessionMark,
} from '../ranks/tournament-entries.js';
import { getItem, getItems, itemKey, type TransactItem } from '../repository.js';
import {
  firstDayMark,
  noteIrregularity,
  playedMark,
  type TotalRead,
  totalRaise,
  writeCommit,
} from './repository.js';
import { requireActive, type Session, sessionKey } from './session.js';

const MAX_ATTEMPTS = 6;

/** The result of a commit, as answered and as kept on the session for replays. */
interface CommitResult {
  status: 'committed';
  committedPoints: number;
  clipped: boolean;
}

/**
 * A retried commit (the first answer was lost) of a session this very chain head sealed: the first commit's
 * result, so the retry neither fails nor counts twice. Undefined when the session was not committed with it.
 */
const replayedCommit = (
  session: Session | undefined,
  input: { seq: number; head: string; total: number },
): CommitResult | undefined => {
  if (session?.status !== 'committed' || session.committedPoints === undefined) return undefined;
  const same =
    input.seq === Number(session.seq) &&
    input.head === String(session.head) &&
    input.total === Number(session.claimedTotal ?? 0);
  return same
    ? {
        status: 'committed',
        committedPoints: Number(session.committedPoints),
        clipped: session.clipped === true,
      }
    : undefined;
};

/** The session as of a commit: active, unexpired, at the client's head and total. */
const requireCommittable = async (
  key: { pk: string; sk: string },
  session: Session | undefined,
  input: { seq: number; head: string; total: number },
  now: Date,
): Promise<Session> => {
  const active = requireActive(session, now);
  if (input.seq !== Number(active.seq) || input.head !== String(active.head)) {
    await noteIrregularity(key, 'chainBreaks');
    throw new AppError(
      'CHAIN_BROKEN',
      'Stale or forged head: resync with GET /play/session-state before committing',
      [{ path: 'head', message: `server head is at seq ${String(active.seq)}` }],
    );
  }
  if (input.total !== Number(active.claimedTotal ?? 0)) {
    throw new AppError('CHAIN_BROKEN', 'total does not match the sum of the flushed deltas', [
      { path: 'total', message: 'mismatch' },
    ]);
  }
  return active;
};

/** A total as read, for its move on its board (undefined: none yet). */
const readTotal = (board: BoardRef, item: Record<string, unknown> | undefined): TotalRead =>
  item
    ? {
        points: Number(item.points ?? 0),
        reachedAt: String(item.reachedAt ?? ''),
        shard: entryShard(board, item),
      }
    : undefined;

/** The day and all-time totals' updates of a commit that moves `accepted` points (none when 0). */
const totalsUpdates = (
  session: Session,
  accepted: number,
  dayCap: number,
  at: string,
  read: Map<string, Record<string, unknown>>,
): TransactItem[] => {
  if (accepted <= 0) return [];
  const gameId = String(session.gameId);
  const arcId = String(session.arcId);
  const day = String(session.day);
  const dayBoard: BoardRef = { kind: 'day', gameId, day };
  const allBoard: BoardRef = { kind: 'all', gameId };
  const dayKey = playKeys.day(gameId, arcId, day);
  const allTimeKey = playKeys.allTime(gameId, arcId);
  const { played, firstDay } = marksOf(read.get(itemKey(dayKey)), read.get(itemKey(allTimeKey)));
  return [
    ...totalRaise(
      dayBoard,
      dayKey,
      arcId,
      readTotal(dayBoard, read.get(itemKey(dayKey))),
      accepted,
      at,
      metaOf(read.get(itemKey(metaKey(dayBoard))), read.get(itemKey(metaKey(allBoard)))),
      {
        condition: '(attribute_not_exists(points) OR points <= :limit)',
        values: { ':limit': dayCap - accepted },
      },
      played ? undefined : playedMark,
    ),
    ...totalRaise(
      allBoard,
      allTimeKey,
      arcId,
      readTotal(allBoard, read.get(itemKey(allTimeKey))),
      accepted,
      at,
      metaOf(read.get(itemKey(metaKey(allBoard)))),
      undefined,
      firstDay === undefined ? firstDayMark(day) : undefined,
    ),
  ];
};

/** What the player's totals say for the insights: the day marked `played`, the player's first day. */
const marksOf = (dayItem?: Record<string, unknown>, allTimeItem?: Record<string, unknown>) => ({
  played: dayItem?.played === true,
  firstDay: typeof allTimeItem?.firstDay === 'string' ? allTimeItem.firstDay : undefined,
});

/**
 * What a commit adds to the game's figures (lib/insights): on the session's day, a session committed and its
 * points, and, when its points are the player's first counted activity of the day, an active player (new, or a
 * return of its cohort); on the commit's day, the tournament entries it made.
 */
const commitInsights = (
  session: Session,
  accepted: number,
  read: Map<string, Record<string, unknown>>,
  entered: number,
  now: Date,
): TransactItem[] => {
  const gameId = String(session.gameId);
  const arcId = String(session.arcId);
  const day = String(session.day);
  const { played, firstDay } = marksOf(
    read.get(itemKey(playKeys.day(gameId, arcId, day))),
    read.get(itemKey(playKeys.allTime(gameId, arcId))),
  );
  const counted: InsightsAdds = { sdkSessions: 1, points: accepted };
  const sessionDay = accepted > 0 && !played ? sumAdds(counted, activityAdds(day, firstDay)) : counted;
  const today = utcDay(now);
  const entries: InsightsAdds = { tournamentEntrants: entered };
  // One item per day: the entries' adds join the session's when both fall on one day.
  const byDay: Array<[string, InsightsAdds]> =
    today === day
      ? [[day, sumAdds(sessionDay, entries)]]
      : [
          [day, sessionDay],
          [today, entries],
        ];
  return byDay.flatMap(([d, adds]) => {
    const item = insightsWrite(gameId, d, adds);
    return item ? [item] : [];
  });
};

/**
 * What a commit of `accepted` points writes to the player's entries of the running tournament periods (a session
 * is one attempt), and the marks it ADDs to the session (what invalidation takes back out).
 */
const tournamentWrites = (
  gameId: string,
  arcId: string,
  sessionId: string,
  accepted: number,
  runs: RunningPeriod[],
  read: Map<string, Record<string, unknown>>,
  at: string,
) => {
  const states = periodStates(gameId, arcId, runs, (k) => read.get(itemKey(k)));
  const adds = [{ sessionId, add: accepted, marks: new Set<string>() }];
  const writes = states.flatMap((state) => {
    const w = accepted > 0 ? planEntry(gameId, arcId, state, adds) : undefined;
    return w ? [w] : [];
  });
  return {
    items: writes.flatMap((w) => entryItems(w, at)),
    marks: writes.map((w): [string, number] => [sessionMark(w.run), accepted]),
    /** Entries the commit makes (the player's first attempt in an open period). */
    entered: writes.filter((w) => !w.read).length,
  };
};

/**
 * POST /play/commit: the client's final head and total must match the server's chain; the pending points then
 * move into the day and all-time totals (day cap re-checked by condition) and the session is sealed, keeping
 * its result: a retry of the same commit (same seq, head and total) answers that result again.
 */
export const commit = async (
  auth: AuthContext,
  input: { seq: number; head: string; total: number },
  now = new Date(),
  tournaments?: RunningPeriods,
): Promise<CommitResult> => {
  const key = sessionKey(auth);
  // The game's tournament periods running now: the committed points count into those the player is entered in.
  const runs = tournaments && auth.gameId ? await tournaments(auth.gameId, now) : [];
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const stored = await getItem(key);
    const replay = replayedCommit(stored, input);
    if (replay) return replay;
    const session = await requireCommittable(key, stored, input, now);
    const { gameId, arcId, day } = {
      gameId: String(session.gameId),
      arcId: String(session.arcId),
      day: String(session.day),
    };
    const pending = Number(session.pendingPoints ?? 0);
    const dayKey = playKeys.day(gameId, arcId, day);
    const allTimeKey = playKeys.allTime(gameId, arcId);
    // The totals, and their boards' meta items (a commit may raise a board's height or widen it).
    const totals = await getItems([
      dayKey,
      allTimeKey,
      metaKey({ kind: 'day', gameId, day }),
      metaKey({ kind: 'all', gameId }),
      ...periodStateKeys(gameId, arcId, runs),
    ]);
    const dayItem = totals.get(itemKey(dayKey));
    // Sessions opened before caps had defaults hold none: the default applies to them too.
    const dayCap = capOrDefault(
      'maxCumulativePointsPerDay',
      session.maxCumulativePointsPerDay === null || session.maxCumulativePointsPerDay === undefined
        ? null
        : Number(session.maxCumulativePointsPerDay),
    );
    const accepted = Math.max(0, Math.min(pending, dayCap - Number(dayItem?.points ?? 0)));
    const clipped = accepted < pending;
    const at = now.toISOString();
    const entries = tournamentWrites(gameId, arcId, String(session.sessionId), accepted, runs, totals, at);
    try {
      await writeCommit(
        {
          key,
          at,
          accepted,
          clipped,
          seq: input.seq,
          head: input.head,
          pending,
          marks: entries.marks,
        },
        totalsUpdates(session, accepted, dayCap, at, totals),
        [...entries.items, ...commitInsights(session, accepted, totals, entries.entered, now)],
      );
      return { status: 'committed', committedPoints: accepted, clipped };
    } catch (error) {
      if (!isConditionFailure(error) && (error as { name?: string }).name !== 'TransactionConflictException')
        throw error;
    }
  }
  throw new AppError('CONFLICT', 'The session changed while committing; resync and retry');
};
