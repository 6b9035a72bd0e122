// A batch save plan's typed writes as DynamoDB transaction items: each write's `requires` becomes its condition
// expression, so the guarantees the plan relies on (caps, open sessions, keys applied once) are checked by
// DynamoDB atomically with the write, whatever ran since the state was read. Used by save-points.ts.
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { playIndexes, playKeys } from './keys.js';
import { indexUpdate, playTable, type TransactItem, updateExpression } from './repository.js';
import type {
  AddToAllTime,
  AddToDay,
  AddToSession,
  OpenSession,
  PlanWrite,
  PlayerPlan,
  RecordIdempotency,
} from './save-model.js';

type Item = Record<string, NativeAttributeValue>;

const dayItem = (w: AddToDay, at: string): TransactItem => {
  const index = indexUpdate(playIndexes.day(w.gameId, w.day));
  const conditions: string[] = [];
  const values: Item = { ':add': w.points, ':ns': w.sessions, ':a': w.arcId, ':now': at, ...index.values };
  if (w.requires.pointsAtMost !== null) {
    conditions.push('(attribute_not_exists(points) OR points <= :dayLimit)');
    values[':dayLimit'] = w.requires.pointsAtMost;
  }
  if (w.requires.sessionsAtMost !== null) {
    conditions.push('(attribute_not_exists(sessions) OR sessions <= :sessionLimit)');
    values[':sessionLimit'] = w.requires.sessionsAtMost;
  }
  return {
    Update: {
      TableName: playTable(),
      Key: playKeys.day(w.gameId, w.arcId, w.day),
      UpdateExpression: updateExpression({
        add: ['points :add', 'sessions :ns'],
        set: ['arcId = :a', 'updatedAt = :now', ...(w.points > 0 ? ['reachedAt = :now'] : []), ...index.set],
      }),
      ...(conditions.length ? { ConditionExpression: conditions.join(' AND ') } : {}),
      ExpressionAttributeValues: values,
    },
  };
};

const allTimeItem = (w: AddToAllTime, at: string): TransactItem => {
  const index = indexUpdate(playIndexes.allTime(w.gameId));
  return {
    Update: {
      TableName: playTable(),
      Key: playKeys.allTime(w.gameId, w.arcId),
      UpdateExpression: updateExpression({
        add: ['points :add'],
        set: ['arcId = :a', 'updatedAt = :now', 'reachedAt = :now', ...index.set],
      }),
      ExpressionAttributeValues: { ':add': w.points, ':a': w.arcId, ':now': at, ...index.values },
    },
  };
};

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
  return {
    Update: {
      TableName: playTable(),
      Key: playKeys.session(w.gameId, w.sessionId),
      UpdateExpression: updateExpression({
        add: ['points :add', 'saves :saves', 'capHits :hits'],
        set: ['updatedAt = :now', ...guard.sets, ...index.set],
        remove: index.remove,
      }),
      ConditionExpression: guard.condition,
      ExpressionAttributeNames: { '#status': 'status', ...guard.names },
      ExpressionAttributeValues: {
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

const transactItem = (w: PlanWrite, at: string): TransactItem => {
  switch (w.kind) {
    case 'addToDay':
      return dayItem(w, at);
    case 'addToAllTime':
      return allTimeItem(w, at);
    case 'openSession':
    case 'addToSession':
      return sessionItem(w, at);
    case 'recordIdempotency':
      return idempotencyItem(w);
  }
};

/** A plan's writes as the items of one transaction (all or nothing), in the plan's order. */
export const planItems = (plan: PlayerPlan): TransactItem[] =>
  plan.writes.map((w) => transactItem(w, plan.at));
