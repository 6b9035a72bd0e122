// Flushes of a client SDK session (docs/play-protocol.md §2-3): POST /play/flush, each one link of the hash
// chain, bounded by the player's earning budget (budget.ts), the multiplier and maxScorePerSession.
import type { AuthContext } from '../../core/auth.js';
import { AppError } from '../../core/errors.js';
import { countMetric, countMetricBy } from '../../core/metrics.js';
import { capOrDefault } from '../../games/index.js';
import { insightsWrite } from '../../insights/index.js';
import { outboxItem } from '../../outbox/index.js';
import { activeMultiplierBps, applyMultiplier, multiplierSlotKey } from '../../rewards/index.js';
import { playIndexes, playKeys, RISKY_THRESHOLD, utcDay } from '../keys.js';
import { getItems, indexUpdate, itemKey } from '../repository.js';
import { assessRisk } from '../risk.js';
import { type BudgetRead, budgetDraw, parallelSessions, readBudget } from './budget.js';
import { flushHash } from './chain.js';
import { noteIrregularity, writeFlush } from './repository.js';
import { requireActive, type Session, sessionKey } from './session.js';

const FLUSH_INTERVALS_KEPT = 50;
/**
 * Attempts of a flush whose budget another session of the same player drew on between its read and its write
 * (each one reads again); beyond them the flush answers 409 CONFLICT and changes nothing.
 */
const BUDGET_ATTEMPTS = 10;

/** A cap the session recorded when it opened (sessions opened before caps had defaults hold none: the default). */
const sessionCap = (
  session: Session,
  name: 'maxScorePerSession' | 'maxPointsPerSecond' | 'maxBurstPoints',
): number => {
  const value = session[name];
  return capOrDefault(name, value === null || value === undefined ? null : Number(value));
};

const riskOf = (
  s: Session,
  extra: { points: number; capHits: number; intervals: number[]; parallel: number; now: Date },
) =>
  assessRisk({
    points: extra.points,
    saves: Number(s.saves ?? 0) + 1,
    capHits: extra.capHits,
    maxScorePerSession: sessionCap(s, 'maxScorePerSession'),
    durationSeconds: (extra.now.getTime() - Date.parse(String(s.createdAt))) / 1000,
    flushIntervalsMs: extra.intervals,
    chainBreaks: Number(s.chainBreaks ?? 0),
    resyncs: Number(s.resyncs ?? 0),
    parallelSessions: extra.parallel,
  });

/**
 * The points a flush's delta earns: the player's budget bounds what the client claims (tokens available now), the
 * multiplier then scales it, and what remains of maxScorePerSession bounds the result; `reason` says which bound
 * clipped it. `spent` is what the budget gives up: the claimed points used, never more than were accepted.
 */
const boundDelta = (session: Session, delta: number, multiplierBps: number, budget: BudgetRead) => {
  const room = Math.max(
    0,
    sessionCap(session, 'maxScorePerSession') -
      Number(session.points ?? 0) -
      Number(session.pendingPoints ?? 0),
  );
  const raw = Math.min(delta, Math.floor(budget.available));
  const boosted = applyMultiplier(raw, multiplierBps);
  const accepted = Math.min(boosted, room);
  const reason: 'max_score_per_session' | 'implausible_rate' | null =
    accepted < boosted ? 'max_score_per_session' : raw < delta ? 'implausible_rate' : null;
  return { accepted, spent: Math.min(raw, accepted), reason };
};

export interface FlushInput {
  seq: number;
  delta: number;
  clientTime: number;
  prevHash: string;
  hash: string;
}

/** The link must extend the session's chain: next sequence number, stored head, recomputed hash. */
const requireLink = async (
  key: { pk: string; sk: string },
  sessionId: string,
  session: Session,
  input: FlushInput,
) => {
  const seq = Number(session.seq);
  if (input.seq !== seq + 1) {
    await noteIrregularity(key, 'chainBreaks');
    throw new AppError(
      'FLUSH_OUT_OF_ORDER',
      `Expected seq ${seq + 1}, got ${input.seq}: resync with GET /play/session-state`,
      [{ path: 'seq', message: `expected ${seq + 1}` }],
    );
  }
  const head = String(session.head);
  if (input.prevHash !== head || input.hash !== flushHash(sessionId, input)) {
    await noteIrregularity(key, 'chainBreaks');
    throw new AppError('CHAIN_BROKEN', 'The flush does not extend the session chain', [
      { path: input.prevHash !== head ? 'prevHash' : 'hash', message: 'does not match the chain' },
    ]);
  }
};

export interface FlushResult {
  seq: number;
  head: string;
  accepted: number;
  pendingPoints: number;
  reason: 'max_score_per_session' | 'implausible_rate' | null;
}

/**
 * The `session.flagged` event of a flush that takes the session over the risk threshold, and the flag on the
 * day's figures (lib/insights); none otherwise.
 */
const flaggedEvents = (
  gameId: string,
  sessionId: string,
  arcId: string,
  score: number,
  before: number,
  now: Date,
) =>
  score > RISKY_THRESHOLD && before <= RISKY_THRESHOLD
    ? [
        outboxItem('session.flagged', gameId, {
          sessionId,
          arcId,
          riskScore: score,
          threshold: RISKY_THRESHOLD,
        }),
        ...[insightsWrite(gameId, utcDay(now), { flaggedSessions: 1 })].flatMap((i) => (i ? [i] : [])),
      ]
    : [];

/**
 * One attempt of a flush: one read (the session, the multiplier slot, the budget), one transaction (the session's
 * head and the budget's draw). Undefined when the budget changed between the two (another session of the player
 * flushed): nothing was written, read again.
 */
const attemptFlush = async (
  auth: AuthContext,
  input: FlushInput,
  now: Date,
): Promise<FlushResult | undefined> => {
  const key = sessionKey(auth);
  const gameId = String(auth.gameId);
  const sessionId = auth.sessionId ?? '';
  // An active multiplier scales the accepted delta here, once: commit moves pending points as they are.
  const slotKey = multiplierSlotKey(gameId, auth.userId);
  const budgetKey = playKeys.budget(gameId, auth.userId);
  const items = await getItems([key, slotKey, budgetKey]);
  const session = requireActive(items.get(itemKey(key)), now);
  await requireLink(key, sessionId, session, input);
  const multiplierBps = activeMultiplierBps(items.get(itemKey(slotKey)), now);
  const budget = readBudget(
    items.get(itemKey(budgetKey)),
    {
      pointsPerSecond: sessionCap(session, 'maxPointsPerSecond'),
      burst: sessionCap(session, 'maxBurstPoints'),
    },
    now.getTime(),
  );
  const points = Number(session.points ?? 0);
  const pending = Number(session.pendingPoints ?? 0);
  const { accepted, spent, reason } = boundDelta(session, input.delta, multiplierBps, budget);
  const intervals = [
    ...((session.flushIntervals as number[] | undefined) ?? []),
    now.getTime() - Date.parse(String(session.lastFlushAt)),
  ].slice(-FLUSH_INTERVALS_KEPT);
  const capHits = Number(session.capHits ?? 0) + (reason ? 1 : 0);
  const parallel = Math.max(Number(session.parallelSessions ?? 0), parallelSessions(budget, sessionId));
  const risk = riskOf(session, { points: points + pending + accepted, capHits, intervals, parallel, now });
  const riskIndex = indexUpdate(playIndexes.risk(gameId, risk));
  const flagged = flaggedEvents(
    gameId,
    sessionId,
    auth.userId,
    risk.score,
    Number(session.riskScore ?? 0),
    now,
  );
  let failed: Partial<Record<'session' | 'budget' | 'flagged', string>> | undefined;
  try {
    failed = await writeFlush(
      {
        key,
        seq: input.seq,
        hash: input.hash,
        now: now.toISOString(),
        intervals,
        parallel,
        accepted,
        delta: input.delta,
        capHit: reason !== null,
        prevSeq: Number(session.seq),
        prevHash: String(session.head),
        riskIndex,
      },
      budgetDraw({
        gameId,
        arcId: auth.userId,
        sessionId,
        read: budget,
        spent,
        nowMs: now.getTime(),
      }),
      flagged,
    );
  } catch (error) {
    if ((error as { name?: string }).name === 'TransactionConflictException') return undefined;
    throw error;
  }
  if (failed) {
    // The budget alone: another session of the player drew on it first (read again). The session: another flush
    // or a commit moved it first.
    if (!failed.session && failed.budget) return undefined;
    // Only conflicts (a concurrent write to the figures' item, lib/insights): nothing refused, read again.
    if (Object.values(failed).every((code) => code === 'TransactionConflict')) return undefined;
    throw new AppError(
      'FLUSH_OUT_OF_ORDER',
      'Another flush advanced the chain first: resync with GET /play/session-state',
    );
  }
  countMetric('PointsAccepted', accepted);
  if (reason) countMetricBy('SavesRefused', { reason });
  if (flagged.length > 0) countMetric('SessionsFlagged');
  return { seq: input.seq, head: input.hash, accepted, pendingPoints: pending + accepted, reason };
};

/**
 * POST /play/flush: verify the link (sequence, previous hash, recomputed hash) and advance the chain head with
 * one conditional write on it, so concurrent or replayed flushes can never both count. The delta is bounded by
 * the player's earning budget (shared by all the player's sessions, drawn in the same transaction, conditional
 * on the budget read) and by what remains of maxScorePerSession.
 */
export const flush = async (auth: AuthContext, input: FlushInput, now = new Date()): Promise<FlushResult> => {
  for (let attempt = 0; attempt < BUDGET_ATTEMPTS; attempt++) {
    // Parallel sessions would retry at once and meet again: a random wait, doubling, spreads them out.
    if (attempt > 0)
      await new Promise((r) => setTimeout(r, Math.random() * 10 * 2 ** Math.min(attempt - 1, 5)));
    const result = await attemptFlush(auth, input, now);
    if (result) return result;
  }
  throw new AppError(
    'CONFLICT',
    "The player's other sessions kept drawing on the earning budget: nothing was counted, send the flush again",
  );
};
