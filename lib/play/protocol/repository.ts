// The session protocol's writes on an open session and on the totals it moves (docs/play-protocol.md): an
// irregularity noted, a flush's step of the chain head, a commit's seal with the totals it raises, an
// invalidation with the totals it lowers. Each write's condition is the session's invariant (the head read, the
// points read, still active); the use cases (session.ts, flush.ts, commit.ts, invalidate.ts) decide what to write.
// The opening puts the session item, so its write is apart (open-repository.ts): a function is granted what the
// modules in its bundle declare (infra/access.ts), and no function but the opening's puts a session.
import { transactNamed } from '../../adapters/dynamodb.js';
import { type BoardMeta, type BoardRef, entryShard } from '../ranks/board.js';
import { boardMove } from '../ranks/writes.js';
import { type indexUpdate, playTable, type TransactItem, transact, updateExpression } from '../repository.js';

type Key = { pk: string; sk: string };

/** Record a protocol irregularity on the session (it feeds the risk score); a failed write is let go. */
export const noteIrregularity = async (key: Key, field: 'chainBreaks' | 'resyncs') => {
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

/** What a flush writes on its session: the new head and what the link added, as read before. */
export interface FlushStep {
  key: Key;
  seq: number;
  hash: string;
  now: string;
  intervals: number[];
  parallel: number;
  accepted: number;
  delta: number;
  capHit: boolean;
  prevSeq: number;
  prevHash: string;
  riskIndex: ReturnType<typeof indexUpdate>;
}

/**
 * A flush: the session's head moves one link (conditional on the head read and the session active), the budget
 * draw and the `session.flagged` event with it. The names of the writes whose condition failed, if any.
 */
export const writeFlush = (step: FlushStep, budget: TransactItem, flagged: TransactItem[]) =>
  transactNamed({
    session: {
      Update: {
        TableName: playTable(),
        Key: step.key,
        UpdateExpression: updateExpression({
          set: [
            'seq = :seq',
            'head = :hash',
            'lastFlushAt = :now',
            'updatedAt = :now',
            'flushIntervals = :intervals',
            'parallelSessions = :parallel',
            ...step.riskIndex.set,
          ],
          add: ['pendingPoints :acc', 'claimedTotal :delta', 'saves :one', 'capHits :hit'],
          remove: step.riskIndex.remove,
        }),
        ConditionExpression: 'seq = :prevSeq AND head = :prevHash AND #status = :active',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':seq': step.seq,
          ':hash': step.hash,
          ':now': step.now,
          ':intervals': step.intervals,
          ':parallel': step.parallel,
          ':acc': step.accepted,
          ':delta': step.delta,
          ':one': 1,
          ':hit': step.capHit ? 1 : 0,
          ':prevSeq': step.prevSeq,
          ':prevHash': step.prevHash,
          ':active': 'active',
          ...step.riskIndex.values,
        },
      },
    },
    budget,
    flagged,
  });

/** A total as read, for its move on its board (undefined: none yet). */
export type TotalRead = { points: number; reachedAt: string; shard: number | undefined } | undefined;

/**
 * A mark a raise sets on its total once (lib/insights): the day's `played`, the all-time total's `firstDay`,
 * conditional on its absence, so that a mark counted by a commit is counted once.
 */
export interface TotalMark {
  set: string;
  condition: string;
  values: Record<string, string | boolean>;
}

export const playedMark: TotalMark = {
  set: 'played = :played',
  condition: 'attribute_not_exists(played)',
  values: { ':played': true },
};

export const firstDayMark = (day: string): TotalMark => ({
  set: 'firstDay = :firstDay',
  condition: 'attribute_not_exists(firstDay)',
  values: { ':firstDay': day },
});

/** One total's raise by `accepted` points with its board move (conditional on the points read, and the cap). */
export const totalRaise = (
  board: BoardRef,
  key: Key,
  arcId: string,
  read: TotalRead,
  accepted: number,
  at: string,
  meta: BoardMeta,
  cap?: { condition: string; values: Record<string, number> },
  mark?: TotalMark,
): TransactItem[] => {
  const move = boardMove(
    board,
    read && { arcId, ...read },
    { arcId, points: (read?.points ?? 0) + accepted, reachedAt: at },
    meta,
  );
  return [
    {
      Update: {
        TableName: playTable(),
        Key: key,
        UpdateExpression: updateExpression({
          add: ['points :acc'],
          set: [
            'arcId = :a',
            'updatedAt = :now',
            'reachedAt = :now',
            ...move.set,
            ...(mark ? [mark.set] : []),
          ],
          remove: move.remove,
        }),
        ConditionExpression: [
          move.condition,
          ...(cap ? [cap.condition] : []),
          ...(mark ? [mark.condition] : []),
        ].join(' AND '),
        ExpressionAttributeValues: {
          ':acc': accepted,
          ':a': arcId,
          ':now': at,
          ...move.values,
          ...(cap?.values ?? {}),
          ...(mark?.values ?? {}),
        },
      },
    },
    ...move.counters,
    ...move.meta,
  ];
};

/** What a commit writes on its session: sealed with its result, at the head and pending points read. */
export interface CommitSeal {
  key: Key;
  at: string;
  accepted: number;
  clipped: boolean;
  seq: number;
  head: string;
  pending: number;
  /** The tournament periods' marks it ADDs (attribute name, points counted there). */
  marks: Array<[string, number]>;
}

/** A commit: the session sealed and the totals and tournament entries it moves, in one transaction. */
export const writeCommit = async (seal: CommitSeal, totals: TransactItem[], entries: TransactItem[]) => {
  const { marks } = seal;
  await transact([
    {
      Update: {
        TableName: playTable(),
        Key: seal.key,
        UpdateExpression: `SET #status = :committed, committedAt = :now, updatedAt = :now, pendingPoints = :zero, committedPoints = :acc, clipped = :clipped ADD points :acc, capHits :hit${marks.map((_, i) => `, #m${i} :m${i}`).join('')}`,
        ConditionExpression: 'seq = :seq AND head = :head AND #status = :active AND pendingPoints = :pending',
        ExpressionAttributeNames: {
          '#status': 'status',
          ...Object.fromEntries(marks.map(([mark], i) => [`#m${i}`, mark])),
        },
        ExpressionAttributeValues: {
          ...Object.fromEntries(marks.map(([, add], i) => [`:m${i}`, add])),
          ':committed': 'committed',
          ':now': seal.at,
          ':zero': 0,
          ':acc': seal.accepted,
          ':clipped': seal.clipped,
          ':hit': seal.clipped ? 1 : 0,
          ':seq': seal.seq,
          ':head': seal.head,
          ':active': 'active',
          ':pending': seal.pending,
        },
      },
    },
    ...totals,
    ...entries,
  ]);
};

/**
 * A total losing `points`, with its move down its board (it keeps when it reached its score; at 0 it leaves
 * the board), conditional on the points read.
 */
export const totalLowering = (
  board: BoardRef,
  key: Key,
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

/** An invalidation as read: the session's points and pending points, which its condition holds. */
export interface Invalidation {
  key: Key;
  points: number;
  pending: number;
  now: string;
}

/**
 * An invalidation: the session's status flips and its points go (conditional on the points read and on it not
 * being invalidated yet), with the totals' and entries' lowerings and the `session.invalidated` event.
 */
export const writeInvalidation = async (
  inv: Invalidation,
  lowerings: TransactItem[],
  event: TransactItem,
  figures: TransactItem[] = [],
) => {
  await transact([
    {
      Update: {
        TableName: playTable(),
        Key: inv.key,
        UpdateExpression:
          'SET #status = :inv, invalidatedPoints = :p, invalidatedAt = :now, updatedAt = :now, points = :zero, pendingPoints = :zero',
        ConditionExpression: '#status <> :inv AND points = :p AND pendingPoints = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':inv': 'invalidated',
          ':p': inv.points,
          ':pending': inv.pending,
          ':now': inv.now,
          ':zero': 0,
        },
      },
    },
    ...lowerings,
    event,
    ...figures,
  ]);
};
