// Flushes of a client SDK session (docs/play-protocol.md §2-3): POST /play/flush, each one link of the hash
// chain, bounded by plausibility, the multiplier and maxScorePerSession.
import { isConditionFailure } from '../adapters/dynamodb.js';
import type { AuthContext } from '../core/auth.js';
import { AppError } from '../core/errors.js';
import { activeMultiplierBps, applyMultiplier, multiplierSlotKey } from '../rewards/index.js';
import { playIndexes } from './keys.js';
import { flushHash } from './protocol.js';
import { getItems, indexUpdate, itemKey, playTable, transact, updateExpression } from './repository.js';
import { assessRisk } from './risk.js';
import { noteIrregularity, requireActive, type Session, sessionKey } from './sdk-session.js';

/** Plausibility bound: points a player can earn per second of real time between flushes. */
export const POINTS_PER_SECOND_LIMIT = 1000;
const FLUSH_INTERVALS_KEPT = 50;

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
