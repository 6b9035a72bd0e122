import { randomBytes, randomUUID } from 'node:crypto';
import { isConditionFailure } from '../adapters/dynamodb.js';
import type { AuthContext } from '../core/auth.js';
import { AppError, errors } from '../core/errors.js';
import { derivedUuid } from '../core/ids.js';
import { requireGame } from '../games/read.js';
import { activeMultiplierBps, applyMultiplier, multiplierSlotKey } from '../rewards/multiplier.js';
import { playIndexes, playKeys, utcDay } from './keys.js';
import { flushHash } from './protocol.js';
import {
  cancellationReasons,
  getItem,
  getItems,
  indexUpdate,
  itemKey,
  playTable,
  transact,
  updateExpression,
} from './repository.js';
import { assessRisk } from './risk.js';
import { issueSessionToken } from './session-token.js';

/** How long a play session (and its token) lives. */
export const SESSION_TTL_MS = 2 * 60 * 60 * 1000;
/** Plausibility bound: points a player can earn per second of real time between flushes. */
export const POINTS_PER_SECOND_LIMIT = 1000;
const FLUSH_INTERVALS_KEPT = 50;
const MAX_ATTEMPTS = 6;

const sessionKey = (auth: AuthContext) => {
  if (!auth.gameId || !auth.sessionId) throw errors.unauthorized('A session token is required');
  return playKeys.session(auth.gameId, auth.sessionId);
};

const closed = (message: string) => new AppError('SESSION_CLOSED', message);

type Session = Record<string, unknown>;

const requireActive = (session: Session | undefined, now: Date): Session => {
  if (!session) throw errors.notFound('Session');
  if (session.status !== 'active') throw closed(`The session is ${String(session.status)}`);
  if (Date.parse(String(session.expiresAt)) <= now.getTime()) throw closed('The session has expired');
  return session;
};

/** A session opened earlier with the same idempotency key: its token again, while it is still open. */
const reopen = async (auth: AuthContext, gameId: string, sessionId: string, now: Date) => {
  const session = await getItem(playKeys.session(gameId, sessionId));
  if (!session || session.arcId !== auth.userId)
    throw closed('The session opened with this idempotency key has ended');
  const open = requireActive(session, now);
  const expiresAt = new Date(String(open.expiresAt));
  const sessionToken = await issueSessionToken({ arcId: auth.userId, sessionId, gameId }, expiresAt);
  return { sessionToken, sessionId, expiresAt: expiresAt.toISOString(), chainSeed: String(open.chainSeed) };
};

/**
 * GET /play/session-token: open an SDK session (counted against maxSessionsPerDay atomically) and hand out its
 * token and chain seed. With an idempotency key, the session id derives from (player, game, key): a retry finds
 * the session the first request opened (its creation fails on the id) and gets its token again, uncounted.
 */
export const openSession = async (
  auth: AuthContext,
  gameId: string,
  now = new Date(),
  idempotencyKey?: string,
) => {
  if (auth.gameId && auth.gameId !== gameId)
    throw errors.unauthorized('This player token belongs to another game');
  const game = await requireGame(gameId);
  const sessionId = idempotencyKey
    ? derivedUuid('arcadia', 'session', game.id, auth.userId, idempotencyKey)
    : randomUUID();
  const chainSeed = randomBytes(32).toString('hex');
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  const at = now.toISOString();
  const day = utcDay(now);
  const TableName = playTable();
  const sessionsCap = game.maxSessionsPerDay;
  const dayIndex = indexUpdate(playIndexes.day(game.id, day));
  try {
    await transact([
      {
        Update: {
          TableName,
          Key: playKeys.day(game.id, auth.userId, day),
          UpdateExpression: updateExpression({
            add: ['sessions :one', 'points :zero'],
            set: ['arcId = :a', 'updatedAt = :now', ...dayIndex.set],
          }),
          ...(sessionsCap !== null
            ? { ConditionExpression: 'attribute_not_exists(sessions) OR sessions < :cap' }
            : {}),
          ExpressionAttributeValues: {
            ':one': 1,
            ':zero': 0,
            ':a': auth.userId,
            ':now': at,
            ...(sessionsCap !== null ? { ':cap': sessionsCap } : {}),
            ...dayIndex.values,
          },
        },
      },
      {
        Put: {
          TableName,
          Item: {
            ...playKeys.session(game.id, sessionId),
            gameId: game.id,
            sessionId,
            arcId: auth.userId,
            day,
            source: 'sdk',
            status: 'active',
            seq: 0,
            head: chainSeed,
            chainSeed,
            points: 0,
            pendingPoints: 0,
            claimedTotal: 0,
            saves: 0,
            capHits: 0,
            chainBreaks: 0,
            resyncs: 0,
            flushIntervals: [],
            maxScorePerSession: game.maxScorePerSession,
            maxCumulativePointsPerDay: game.maxCumulativePointsPerDay,
            ...playIndexes.risk(game.id, { score: 0, reasons: [] }),
            createdAt: at,
            updatedAt: at,
            lastFlushAt: at,
            expiresAt: expiresAt.toISOString(),
            ...playIndexes.session(game.id, sessionId, at),
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ]);
  } catch (error) {
    // Items: [0] the day's session counter (cap), [1] the session (its id exists: a retried key).
    if (idempotencyKey && cancellationReasons(error)[1] === 'ConditionalCheckFailed')
      return reopen(auth, game.id, sessionId, now);
    if (isConditionFailure(error)) {
      throw new AppError(
        'SESSION_LIMIT_REACHED',
        `This player has used the game's ${sessionsCap} sessions for today (UTC)`,
      );
    }
    throw error;
  }
  const sessionToken = await issueSessionToken({ arcId: auth.userId, sessionId, gameId: game.id }, expiresAt);
  return { sessionToken, sessionId, expiresAt: expiresAt.toISOString(), chainSeed };
};

/** Record a protocol irregularity on the session (it feeds the risk score). */
const noteIrregularity = async (key: { pk: string; sk: string }, field: 'chainBreaks' | 'resyncs') => {
  await transact([
    {
      Update: {
        TableName: playTable(),
        Key: key,
        UpdateExpression: `ADD ${field} :one`,
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':one': 1 },
      },
    },
  ]).catch(() => undefined);
};

const riskOf = (s: Session, extra: { points: number; capHits: number; intervals: number[]; now: Date }) =>
  assessRisk({
    points: extra.points,
    saves: Number(s.saves ?? 0) + 1,
    capHits: extra.capHits,
    maxScorePerSession:
      s.maxScorePerSession === null || s.maxScorePerSession === undefined
        ? null
        : Number(s.maxScorePerSession),
    durationSeconds: (extra.now.getTime() - Date.parse(String(s.createdAt))) / 1000,
    flushIntervalsMs: extra.intervals,
    chainBreaks: Number(s.chainBreaks ?? 0),
    resyncs: Number(s.resyncs ?? 0),
  });

/**
 * The points a flush's delta earns: plausibility bounds what the client claims (POINTS_PER_SECOND_LIMIT × seconds
 * since the previous flush), the multiplier then scales it, and what remains of maxScorePerSession bounds the
 * result; `reason` says which bound clipped it.
 */
const boundDelta = (session: Session, delta: number, multiplierBps: number, now: Date) => {
  const points = Number(session.points ?? 0);
  const pending = Number(session.pendingPoints ?? 0);
  const cap =
    session.maxScorePerSession === null || session.maxScorePerSession === undefined
      ? Number.POSITIVE_INFINITY
      : Number(session.maxScorePerSession);
  const sinceLast = Math.max(1, (now.getTime() - Date.parse(String(session.lastFlushAt))) / 1000);
  const plausible = Math.floor(POINTS_PER_SECOND_LIMIT * sinceLast);
  const boosted = applyMultiplier(Math.min(delta, plausible), multiplierBps);
  const accepted = Math.max(0, Math.min(boosted, cap - points - pending));
  const reason: 'max_score_per_session' | 'implausible_rate' | null =
    accepted === applyMultiplier(delta, multiplierBps)
      ? null
      : cap - points - pending <= applyMultiplier(plausible, multiplierBps)
        ? 'max_score_per_session'
        : 'implausible_rate';
  return { accepted, reason };
};

export interface FlushInput {
  seq: number;
  delta: number;
  clientTime: number;
  prevHash: string;
  hash: string;
}

/**
 * POST /play/flush: verify the link (sequence, previous hash, recomputed hash) and advance the chain head with
 * one conditional write on it, so concurrent or replayed flushes can never both count. The delta is bounded by
 * what remains of maxScorePerSession and by POINTS_PER_SECOND_LIMIT × seconds since the previous flush.
 */
export const flush = async (auth: AuthContext, input: FlushInput, now = new Date()) => {
  const key = sessionKey(auth);
  // The session and the player's multiplier slot in one read; an active multiplier scales the accepted delta
  // here, once: commit moves pending points as they are.
  const slotKey = multiplierSlotKey(String(auth.gameId), auth.userId);
  const items = await getItems([key, slotKey]);
  const session = requireActive(items.get(itemKey(key)), now);
  const multiplierBps = activeMultiplierBps(items.get(itemKey(slotKey)), now);
  const seq = Number(session.seq);
  const head = String(session.head);
  if (input.seq !== seq + 1) {
    await noteIrregularity(key, 'chainBreaks');
    throw new AppError(
      'FLUSH_OUT_OF_ORDER',
      `Expected seq ${seq + 1}, got ${input.seq}: resync with GET /play/session-state`,
      [{ path: 'seq', message: `expected ${seq + 1}` }],
    );
  }
  const expected = flushHash(auth.sessionId ?? '', input);
  if (input.prevHash !== head || input.hash !== expected) {
    await noteIrregularity(key, 'chainBreaks');
    throw new AppError('CHAIN_BROKEN', 'The flush does not extend the session chain', [
      { path: input.prevHash !== head ? 'prevHash' : 'hash', message: 'does not match the chain' },
    ]);
  }
  const points = Number(session.points ?? 0);
  const pending = Number(session.pendingPoints ?? 0);
  const { accepted, reason } = boundDelta(session, input.delta, multiplierBps, now);
  const intervals = [
    ...((session.flushIntervals as number[] | undefined) ?? []),
    now.getTime() - Date.parse(String(session.lastFlushAt)),
  ].slice(-FLUSH_INTERVALS_KEPT);
  const capHits = Number(session.capHits ?? 0) + (reason ? 1 : 0);
  const risk = riskOf(session, { points: points + pending + accepted, capHits, intervals, now });
  const riskIndex = indexUpdate(playIndexes.risk(String(auth.gameId), risk));
  try {
    await transact([
      {
        Update: {
          TableName: playTable(),
          Key: key,
          UpdateExpression: updateExpression({
            set: [
              'seq = :seq',
              'head = :hash',
              'lastFlushAt = :now',
              'updatedAt = :now',
              'flushIntervals = :intervals',
              ...riskIndex.set,
            ],
            add: ['pendingPoints :acc', 'claimedTotal :delta', 'saves :one', 'capHits :hit'],
            remove: riskIndex.remove,
          }),
          ConditionExpression: 'seq = :prevSeq AND head = :prevHash AND #status = :active',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':seq': input.seq,
            ':hash': input.hash,
            ':now': now.toISOString(),
            ':intervals': intervals,
            ':acc': accepted,
            ':delta': input.delta,
            ':one': 1,
            ':hit': reason ? 1 : 0,
            ':prevSeq': seq,
            ':prevHash': head,
            ':active': 'active',
            ...riskIndex.values,
          },
        },
      },
    ]);
  } catch (error) {
    if (isConditionFailure(error)) {
      throw new AppError(
        'FLUSH_OUT_OF_ORDER',
        'Another flush advanced the chain first: resync with GET /play/session-state',
      );
    }
    throw error;
  }
  return { seq: input.seq, head: input.hash, accepted, pendingPoints: pending + accepted, reason };
};

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

/** The day and all-time totals' updates of a commit that moves `accepted` points (none when 0). */
const totalsUpdates = (
  session: Session,
  accepted: number,
  dayCap: number | null,
  at: string,
): NonNullable<Parameters<typeof transact>[0]> => {
  if (accepted <= 0) return [];
  const gameId = String(session.gameId);
  const arcId = String(session.arcId);
  const day = String(session.day);
  const TableName = playTable();
  const dayIndex = indexUpdate(playIndexes.day(gameId, day));
  const allTimeIndex = indexUpdate(playIndexes.allTime(gameId));
  const set = ['arcId = :a', 'updatedAt = :now', 'reachedAt = :now'];
  return [
    {
      Update: {
        TableName,
        Key: playKeys.day(gameId, arcId, day),
        UpdateExpression: updateExpression({ add: ['points :acc'], set: [...set, ...dayIndex.set] }),
        ...(dayCap !== null
          ? { ConditionExpression: 'attribute_not_exists(points) OR points <= :limit' }
          : {}),
        ExpressionAttributeValues: {
          ':acc': accepted,
          ':a': arcId,
          ':now': at,
          ...(dayCap !== null ? { ':limit': dayCap - accepted } : {}),
          ...dayIndex.values,
        },
      },
    },
    {
      Update: {
        TableName,
        Key: playKeys.allTime(gameId, arcId),
        UpdateExpression: updateExpression({ add: ['points :acc'], set: [...set, ...allTimeIndex.set] }),
        ExpressionAttributeValues: { ':acc': accepted, ':a': arcId, ':now': at, ...allTimeIndex.values },
      },
    },
  ];
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
): Promise<CommitResult> => {
  const key = sessionKey(auth);
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
    const dayItem = (await getItems([dayKey])).get(itemKey(dayKey));
    const dayCap =
      session.maxCumulativePointsPerDay === null || session.maxCumulativePointsPerDay === undefined
        ? null
        : Number(session.maxCumulativePointsPerDay);
    const accepted =
      dayCap === null ? pending : Math.max(0, Math.min(pending, dayCap - Number(dayItem?.points ?? 0)));
    const clipped = accepted < pending;
    const at = now.toISOString();
    try {
      await transact([
        {
          Update: {
            TableName: playTable(),
            Key: key,
            UpdateExpression:
              'SET #status = :committed, committedAt = :now, updatedAt = :now, pendingPoints = :zero, committedPoints = :acc, clipped = :clipped ADD points :acc, capHits :hit',
            ConditionExpression:
              'seq = :seq AND head = :head AND #status = :active AND pendingPoints = :pending',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':committed': 'committed',
              ':now': at,
              ':zero': 0,
              ':acc': accepted,
              ':clipped': clipped,
              ':hit': clipped ? 1 : 0,
              ':seq': input.seq,
              ':head': input.head,
              ':active': 'active',
              ':pending': pending,
            },
          },
        },
        ...totalsUpdates(session, accepted, dayCap, at),
      ]);
      return { status: 'committed', committedPoints: accepted, clipped };
    } catch (error) {
      if (!isConditionFailure(error) && (error as { name?: string }).name !== 'TransactionConflictException')
        throw error;
    }
  }
  throw new AppError('CONFLICT', 'The session changed while committing; resync and retry');
};

/** GET /play/session-state: the server's view of the chain, for a client resuming after a crash. */
export const sessionState = async (auth: AuthContext) => {
  const key = sessionKey(auth);
  const session = await getItem(key);
  if (!session) throw errors.notFound('Session');
  await noteIrregularity(key, 'resyncs');
  return {
    sessionId: String(session.sessionId),
    gameId: String(session.gameId),
    status: String(session.status) as 'active' | 'committed' | 'invalidated',
    seq: Number(session.seq ?? 0),
    head: String(session.head),
    pendingPoints: Number(session.pendingPoints ?? 0),
    committedPoints: Number(session.points ?? 0),
    claimedTotal: Number(session.claimedTotal ?? 0),
    expiresAt: String(session.expiresAt),
  };
};

/** GET /play/get-points: the session player's points in the session's game, today and all time. */
export const playerPoints = async (auth: AuthContext, now = new Date()) => {
  const { gameId } = auth;
  if (!gameId) throw errors.unauthorized('A session token is required');
  const day = utcDay(now);
  const items = await getItems([
    playKeys.day(gameId, auth.userId, day),
    playKeys.allTime(gameId, auth.userId),
  ]);
  return {
    gameId,
    arcId: auth.userId,
    day,
    today: Number(items.get(itemKey(playKeys.day(gameId, auth.userId, day)))?.points ?? 0),
    allTime: Number(items.get(itemKey(playKeys.allTime(gameId, auth.userId)))?.points ?? 0),
  };
};
