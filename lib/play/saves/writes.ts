// A batch save plan's typed writes as DynamoDB transaction items: each write's `requires` becomes its condition
// expression, so the guarantees the plan relies on (caps, open sessions, keys applied once) are checked by
// DynamoDB atomically with the write, whatever ran since the state was read. Used by saves/save.ts.
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { insightsWrite } from '../../insights/index.js';
import { playIndexes, playKeys } from '../keys.js';
import type { BoardRef } from '../ranks/board.js';
import { entryItems } from '../ranks/tournament-entries.js';
import { boardMove } from '../ranks/writes.js';
import { indexUpdate, playTable, type TransactItem, updateExpression } from '../repository.js';
import type {
  AddToAllTime,
  AddToDay,
  AddToSession,
  OpenSession,
  PlanWrite,
  PlayerPlan,
  RecordIdempotency,
  SessionStillAbsent,
} from './model.js';

type Item = Record<string, NativeAttributeValue>;

/** A total's update with its move on its board (the counters follow as items of the same transaction). */
const totalItems = (
  board: BoardRef,
  key: { pk: string; sk: string },
  w: AddToDay | AddToAllTime,
  at: string,
  extra: { add: string[]; conditions: string[]; values: Item; set?: string[] },
): TransactItem[] => {
  const reached = w.points > 0 || !w.read?.reachedAt ? at : w.read.reachedAt;
  const move = boardMove(
    board,
    w.read && { arcId: w.arcId, ...w.read },
    { arcId: w.arcId, points: (w.read?.points ?? 0) + w.points, reachedAt: reached },
    w.meta,
  );
  return [
    {
      Update: {
        TableName: playTable(),
        Key: key,
        UpdateExpression: updateExpression({
          add: ['points :add', ...extra.add],
          set: [
            'arcId = :a',
            'updatedAt = :now',
            ...(w.points > 0 ? ['reachedAt = :now'] : []),
            ...move.set,
            ...(extra.set ?? []),
          ],
          remove: move.remove,
        }),
        ConditionExpression: [move.condition, ...extra.conditions].join(' AND '),
        ExpressionAttributeValues: {
          ':add': w.points,
          ':a': w.arcId,
          ':now': at,
          ...move.values,
          ...extra.values,
        },
      },
    },
    ...move.counters,
    ...move.meta,
  ];
};

const dayItems = (w: AddToDay, at: string): TransactItem[] => {
  const conditions: string[] = [];
  const values: Item = { ':ns': w.sessions };
  if (w.requires.pointsAtMost !== null) {
    conditions.push('(attribute_not_exists(points) OR points <= :dayLimit)');
    values[':dayLimit'] = w.requires.pointsAtMost;
  }
  if (w.requires.sessionsAtMost !== null) {
    conditions.push('(attribute_not_exists(sessions) OR sessions <= :sessionLimit)');
    values[':sessionLimit'] = w.requires.sessionsAtMost;
  }
  // The day's first counted write marks it (lib/insights counts an active player once): no other write did.
  if (w.markPlayed) {
    conditions.push('attribute_not_exists(played)');
    values[':played'] = true;
  }
  const board: BoardRef = { kind: 'day', gameId: w.gameId, day: w.day };
  return totalItems(board, playKeys.day(w.gameId, w.arcId, w.day), w, at, {
    add: ['sessions :ns'],
    conditions,
    values,
    set: w.markPlayed ? ['played = :played'] : [],
  });
};

const allTimeItems = (w: AddToAllTime, at: string): TransactItem[] =>
  totalItems({ kind: 'all', gameId: w.gameId }, playKeys.allTime(w.gameId, w.arcId), w, at, {
    add: [],
    // The player's first day, set once (lib/insights: new players, retention cohorts).
    conditions: w.firstDay ? ['attribute_not_exists(firstDay)'] : [],
    values: w.firstDay ? { ':firstDay': w.firstDay } : {},
    set: w.firstDay ? ['firstDay = :firstDay'] : [],
  });

/** What a session write adds to its update beyond the increments and the risk. */
interface SessionGuard {
  condition: string;
  sets: string[];
  values: Item;
  names: Record<string, string>;
  index: Item;
}

/** The condition and extra attributes of a session write: still open (and under its cap), or not there yet. */
const sessionGuard = (w: OpenSession | AddToSession, at: string): SessionGuard => {
  if (w.kind === 'addToSession') {
    const values: Item = { ':active': w.requires.status, ':a': w.requires.arcId };
    let condition = '#status = :active AND arcId = :a';
    if (w.requires.pointsAtMost !== null) {
      condition += ' AND points <= :sessionLimit';
      values[':sessionLimit'] = w.requires.pointsAtMost;
    }
    return { condition, sets: [], values, names: {}, index: {} };
  }
  return {
    condition: 'attribute_not_exists(pk)',
    sets: [
      'gameId = :g',
      'sessionId = :sid',
      'arcId = :a',
      '#day = :day',
      '#source = :source',
      '#status = :active',
      'createdAt = :now',
      'pendingPoints = :zero',
    ],
    values: {
      ':g': w.gameId,
      ':sid': w.sessionId,
      ':a': w.arcId,
      ':day': w.day,
      ':source': 'backend',
      ':active': 'active',
      ':zero': 0,
    },
    names: { '#day': 'day', '#source': 'source' },
    index: playIndexes.session(w.gameId, w.sessionId, at),
  };
};

const sessionItem = (w: OpenSession | AddToSession, at: string): TransactItem => {
  const guard = sessionGuard(w, at);
  const index = indexUpdate({ ...guard.index, ...playIndexes.risk(w.gameId, w.risk) });
  // The points it counts into tournament periods, one attribute per period (invalidation takes them back out).
  const marks = w.marks ?? [];
  const markNames = Object.fromEntries(marks.map(([mark], i) => [`#m${i}`, mark]));
  const markValues = Object.fromEntries(marks.map(([, add], i) => [`:m${i}`, add]));
  return {
    Update: {
      TableName: playTable(),
      Key: playKeys.session(w.gameId, w.sessionId),
      UpdateExpression: updateExpression({
        add: ['points :add', 'saves :saves', 'capHits :hits', ...marks.map((_, i) => `#m${i} :m${i}`)],
        set: ['updatedAt = :now', ...guard.sets, ...index.set],
        remove: index.remove,
      }),
      ConditionExpression: guard.condition,
      ExpressionAttributeNames: { '#status': 'status', ...guard.names, ...markNames },
      ExpressionAttributeValues: {
        ...markValues,
        ':add': w.points,
        ':saves': w.saves,
        ':hits': w.capHits,
        ':now': at,
        ...index.values,
        ...guard.values,
      },
    },
  };
};

const idempotencyItem = (w: RecordIdempotency): TransactItem => ({
  Put: {
    TableName: playTable(),
    Item: {
      ...playKeys.idempotency(w.gameId, w.key),
      accepted: w.accepted,
      status: w.status,
      expiresAt: w.expiresAt,
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

const absentSessionItem = (w: SessionStillAbsent): TransactItem => ({
  ConditionCheck: {
    TableName: playTable(),
    Key: playKeys.session(w.gameId, w.sessionId),
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

const transactItems = (w: PlanWrite, at: string): TransactItem[] => {
  switch (w.kind) {
    case 'addToDay':
      return dayItems(w, at);
    case 'addToAllTime':
      return allTimeItems(w, at);
    case 'openSession':
    case 'addToSession':
      return [sessionItem(w, at)];
    case 'recordIdempotency':
      return [idempotencyItem(w)];
    case 'sessionStillAbsent':
      return [absentSessionItem(w)];
    case 'addToEntry':
      return entryItems(w, at);
    case 'addToInsights': {
      // Copy 0: the group's transaction moves it to its own copy (saves/groups.ts), like the board counters.
      const item = insightsWrite(w.gameId, w.day, w.adds, 0);
      return item ? [item] : [];
    }
  }
};

/**
 * A plan's writes as the items of one transaction (all or nothing), in the plan's order, the totals' board
 * counters right after each total.
 */
export const planItems = (plan: PlayerPlan): TransactItem[] =>
  plan.writes.flatMap((w) => transactItems(w, plan.at));
