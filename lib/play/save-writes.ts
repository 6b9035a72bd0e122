// A batch save plan's typed writes as DynamoDB transaction items: each write's `requires` becomes its condition
// expression, so the guarantees the plan relies on (caps, open sessions, keys applied once) are checked by
// DynamoDB atomically with the write, whatever ran since the state was read. Used by save-points.ts.
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { playKeys, RISKY_THRESHOLD } from './keys.js';
import { playTable, type TransactItem } from './repository.js';
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
  const conditions: string[] = [];
  const values: Item = {
    ':add': w.points,
    ':ns': w.sessions,
    ':board': playKeys.boardDay(w.gameId, w.day),
    ':a': w.arcId,
    ':now': at,
  };
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
      UpdateExpression: `ADD points :add, sessions :ns SET boardDay = :board, arcId = :a, updatedAt = :now${w.points > 0 ? ', reachedAt = :now' : ''}`,
      ...(conditions.length ? { ConditionExpression: conditions.join(' AND ') } : {}),
      ExpressionAttributeValues: values,
    },
  };
};

const allTimeItem = (w: AddToAllTime, at: string): TransactItem => ({
  Update: {
    TableName: playTable(),
    Key: playKeys.allTime(w.gameId, w.arcId),
    UpdateExpression: 'ADD points :add SET boardAll = :g, arcId = :a, updatedAt = :now, reachedAt = :now',
    ExpressionAttributeValues: { ':add': w.points, ':g': w.gameId, ':a': w.arcId, ':now': at },
  },
});

/** The condition and extra attributes of a session write: still open (and under its cap), or not there yet. */
const sessionGuard = (w: OpenSession | AddToSession, at: string) => {
  if (w.kind === 'addToSession') {
    const values: Item = { ':active': w.requires.status, ':a': w.requires.arcId };
    let condition = '#status = :active AND arcId = :a';
    if (w.requires.pointsAtMost !== null) {
      condition += ' AND points <= :sessionLimit';
      values[':sessionLimit'] = w.requires.pointsAtMost;
    }
    return { condition, sets: [], values, names: {} as Record<string, string> };
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
      'sessionGame = :g',
      'sessionSort = :sort',
      'pendingPoints = :zero',
    ],
    values: {
      ':g': w.gameId,
      ':sid': w.sessionId,
      ':a': w.arcId,
      ':day': w.day,
      ':source': 'backend',
      ':active': 'active',
      ':sort': `${at}#${w.sessionId}`,
      ':zero': 0,
    } as Item,
    names: { '#day': 'day', '#source': 'source' },
  };
};

const sessionItem = (w: OpenSession | AddToSession, at: string): TransactItem => {
  const risky = w.risk.score > RISKY_THRESHOLD;
  const guard = sessionGuard(w, at);
  const sets = ['updatedAt = :now', 'riskScore = :risk', 'riskReasons = :reasons', ...guard.sets];
  if (risky) sets.push('riskyGame = :g');
  return {
    Update: {
      TableName: playTable(),
      Key: playKeys.session(w.gameId, w.sessionId),
      UpdateExpression: `ADD points :add, saves :saves, capHits :hits SET ${sets.join(', ')}${risky ? '' : ' REMOVE riskyGame'}`,
      ConditionExpression: guard.condition,
      ExpressionAttributeNames: { '#status': 'status', ...guard.names },
      ExpressionAttributeValues: {
        ':add': w.points,
        ':saves': w.saves,
        ':hits': w.capHits,
        ':now': at,
        ':risk': w.risk.score,
        ':reasons': w.risk.reasons,
        ...(risky ? { ':g': w.gameId } : {}),
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
