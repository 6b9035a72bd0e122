// What one player's entries of a batch save do, decided from the state read before (pure, no I/O): the
// per-entry results and the conditional writes that apply them. Used by save-points.ts.
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import type { GameRecord } from '../games/index.js';
import { applyMultiplier } from '../rewards/index.js';
import { defaultSessionId, playKeys, RISKY_THRESHOLD } from './keys.js';
import { itemKey, playTable, type TransactItem } from './repository.js';
import { assessRisk } from './risk.js';

type Item = Record<string, NativeAttributeValue>;

export interface SaveEntry {
  playerId: string;
  points: number;
  sessionId?: string | undefined;
  idempotencyKey?: string | undefined;
}

export type EntryStatus = 'accepted' | 'clipped' | 'rejected' | 'duplicate';
export type EntryReason =
  | 'max_score_per_session'
  | 'max_cumulative_points_per_day'
  | 'max_sessions_per_day'
  | 'session_closed';

export interface EntryResult {
  index: number;
  playerId: string;
  arcId: string;
  sessionId: string;
  requested: number;
  accepted: number;
  status: EntryStatus;
  reason: EntryReason | null;
}

/** An entry with its position in the request. */
export interface Indexed {
  index: number;
  entry: SaveEntry;
}

interface SessionPlan {
  sessionId: string;
  exists: boolean;
  day: string;
  points: number;
  saves: number;
  capHits: number;
  createdAt: string;
  add: number;
  addSaves: number;
  addCapHits: number;
}

interface DayPlan {
  points: number;
  sessions: number;
  add: number;
  newSessions: number;
}

/** What one plan reads: the game, the player, the state read for it, and the instant it is made at. */
export interface PlanInput {
  game: GameRecord;
  arcId: string;
  state: Map<string, Item>;
  today: string;
  now: string;
  /** Active multiplier: each entry's points are scaled before the caps. */
  multiplierBps: number;
}

export interface PlayerPlan {
  results: EntryResult[];
  sessions: SessionPlan[];
  days: Map<string, DayPlan>;
  idempotency: Array<{ key: string; result: EntryResult }>;
}

interface Planning extends PlanInput {
  sessions: Map<string, SessionPlan>;
  days: Map<string, DayPlan>;
  results: EntryResult[];
  idempotency: Array<{ key: string; result: EntryResult }>;
  seenKeys: Map<string, EntryResult>;
}

const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

const room = (cap: number | null, used: number) =>
  cap === null ? Number.POSITIVE_INFINITY : Math.max(0, cap - used);

/** The player's total of a day as read, with what this plan adds to it. */
const dayPlan = (p: Planning, day: string): DayPlan => {
  let d = p.days.get(day);
  if (!d) {
    const item = p.state.get(itemKey(playKeys.day(p.game.id, p.arcId, day)));
    d = { points: Number(item?.points ?? 0), sessions: Number(item?.sessions ?? 0), add: 0, newSessions: 0 };
    p.days.set(day, d);
  }
  return d;
};

/** The session an entry counts towards (opened when new), or why the entry takes no points. */
const sessionFor = (p: Planning, sessionId: string): SessionPlan | EntryReason => {
  const planned = p.sessions.get(sessionId);
  if (planned) return planned;
  const item = p.state.get(itemKey(playKeys.session(p.game.id, sessionId)));
  if (item && (item.status !== 'active' || item.arcId !== p.arcId || item.source !== 'backend'))
    return 'session_closed';
  if (!item) {
    const day = dayPlan(p, p.today);
    if (p.game.maxSessionsPerDay !== null && day.sessions + day.newSessions >= p.game.maxSessionsPerDay)
      return 'max_sessions_per_day';
    day.newSessions += 1;
  }
  const session: SessionPlan = {
    sessionId,
    exists: Boolean(item),
    day: String(item?.day ?? p.today),
    points: Number(item?.points ?? 0),
    saves: Number(item?.saves ?? 0),
    capHits: Number(item?.capHits ?? 0),
    createdAt: String(item?.createdAt ?? p.now),
    add: 0,
    addSaves: 0,
    addCapHits: 0,
  };
  p.sessions.set(sessionId, session);
  return session;
};

/** How much of `points` the session's and the day's caps let in, and which one clipped it. */
const capped = (game: GameRecord, session: SessionPlan, day: DayPlan, points: number) => {
  const sessionRoom = room(game.maxScorePerSession, session.points + session.add);
  const dayRoom = room(game.maxCumulativePointsPerDay, day.points + day.add);
  const accepted = Math.min(points, sessionRoom, dayRoom);
  const reason: EntryReason | null =
    accepted === points
      ? null
      : sessionRoom <= dayRoom
        ? 'max_score_per_session'
        : 'max_cumulative_points_per_day';
  return { accepted, reason };
};

const record = (p: Planning, result: EntryResult, key: string | undefined) => {
  p.results.push(result);
  if (key) {
    p.seenKeys.set(key, result);
    p.idempotency.push({ key, result });
  }
};

const planEntry = (p: Planning, { index, entry }: Indexed) => {
  const sessionId = entry.sessionId ?? defaultSessionId(p.today, p.arcId);
  const base = { index, playerId: entry.playerId, arcId: p.arcId, sessionId, requested: entry.points };
  const key = entry.idempotencyKey;
  const earlier = key
    ? (p.seenKeys.get(key) ?? p.state.get(itemKey(playKeys.idempotency(p.game.id, key))))
    : undefined;
  if (earlier) {
    p.results.push({ ...base, accepted: Number(earlier.accepted ?? 0), status: 'duplicate', reason: null });
    return;
  }
  const session = sessionFor(p, sessionId);
  if (typeof session === 'string') {
    record(p, { ...base, accepted: 0, status: 'rejected', reason: session }, key);
    return;
  }
  const day = dayPlan(p, session.day);
  const { accepted, reason } = capped(p.game, session, day, applyMultiplier(entry.points, p.multiplierBps));
  session.add += accepted;
  session.addSaves += 1;
  if (reason) session.addCapHits += 1;
  day.add += accepted;
  const status = reason === null ? 'accepted' : accepted > 0 ? 'clipped' : 'rejected';
  record(p, { ...base, accepted, status, reason }, key);
};

/**
 * Decide, from the state read, what each entry of one player may add. The idempotency record keeps the result
 * (after any multiplier), so a replay never multiplies twice.
 */
export const planPlayer = (input: PlanInput, entries: Indexed[]): PlayerPlan => {
  const p: Planning = {
    ...input,
    sessions: new Map(),
    days: new Map(),
    results: [],
    idempotency: [],
    seenKeys: new Map(),
  };
  for (const entry of entries) planEntry(p, entry);
  return { results: p.results, sessions: [...p.sessions.values()], days: p.days, idempotency: p.idempotency };
};

const dayWrite = (input: PlanInput, day: string, d: DayPlan): TransactItem => {
  const { game, arcId, now } = input;
  const conditions: string[] = [];
  const values: Item = {
    ':add': d.add,
    ':ns': d.newSessions,
    ':board': playKeys.boardDay(game.id, day),
    ':a': arcId,
    ':now': now,
  };
  if (game.maxCumulativePointsPerDay !== null && d.add > 0) {
    conditions.push('(attribute_not_exists(points) OR points <= :dayLimit)');
    values[':dayLimit'] = game.maxCumulativePointsPerDay - d.add;
  }
  if (game.maxSessionsPerDay !== null && d.newSessions > 0) {
    conditions.push('(attribute_not_exists(sessions) OR sessions <= :sessionLimit)');
    values[':sessionLimit'] = game.maxSessionsPerDay - d.newSessions;
  }
  return {
    Update: {
      TableName: playTable(),
      Key: playKeys.day(game.id, arcId, day),
      UpdateExpression: `ADD points :add, sessions :ns SET boardDay = :board, arcId = :a, updatedAt = :now${d.add > 0 ? ', reachedAt = :now' : ''}`,
      ...(conditions.length ? { ConditionExpression: conditions.join(' AND ') } : {}),
      ExpressionAttributeValues: values,
    },
  };
};

const allTimeWrite = ({ game, arcId, now }: PlanInput, total: number): TransactItem => ({
  Update: {
    TableName: playTable(),
    Key: playKeys.allTime(game.id, arcId),
    UpdateExpression: 'ADD points :add SET boardAll = :g, arcId = :a, updatedAt = :now, reachedAt = :now',
    ExpressionAttributeValues: { ':add': total, ':g': game.id, ':a': arcId, ':now': now },
  },
});

/** The condition and extra values of a session update: still open (and under its cap), or not there yet. */
const sessionGuard = ({ game, arcId, now }: PlanInput, s: SessionPlan) => {
  if (s.exists) {
    const values: Item = { ':active': 'active', ':a': arcId };
    let condition = '#status = :active AND arcId = :a';
    if (game.maxScorePerSession !== null && s.add > 0) {
      condition += ' AND points <= :sessionLimit';
      values[':sessionLimit'] = game.maxScorePerSession - s.add;
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
      ':g': game.id,
      ':sid': s.sessionId,
      ':a': arcId,
      ':day': s.day,
      ':source': 'backend',
      ':active': 'active',
      ':sort': `${now}#${s.sessionId}`,
      ':zero': 0,
    } as Item,
    names: { '#day': 'day', '#source': 'source' },
  };
};

const sessionWrite = (input: PlanInput, s: SessionPlan): TransactItem => {
  const { game, now } = input;
  const risk = assessRisk({
    points: s.points + s.add,
    saves: s.saves + s.addSaves,
    capHits: s.capHits + s.addCapHits,
    maxScorePerSession: game.maxScorePerSession,
    durationSeconds: (Date.parse(now) - Date.parse(s.createdAt)) / 1000,
  });
  const risky = risk.score > RISKY_THRESHOLD;
  const guard = sessionGuard(input, s);
  const sets = ['updatedAt = :now', 'riskScore = :risk', 'riskReasons = :reasons', ...guard.sets];
  if (risky) sets.push('riskyGame = :g');
  return {
    Update: {
      TableName: playTable(),
      Key: playKeys.session(game.id, s.sessionId),
      UpdateExpression: `ADD points :add, saves :saves, capHits :hits SET ${sets.join(', ')}${risky ? '' : ' REMOVE riskyGame'}`,
      ConditionExpression: guard.condition,
      ExpressionAttributeNames: { '#status': 'status', ...guard.names },
      ExpressionAttributeValues: {
        ':add': s.add,
        ':saves': s.addSaves,
        ':hits': s.addCapHits,
        ':now': now,
        ':risk': risk.score,
        ':reasons': risk.reasons,
        ...(risky ? { ':g': game.id } : {}),
        ...guard.values,
      },
    },
  };
};

const idempotencyWrite = ({ game, now }: PlanInput, key: string, result: EntryResult): TransactItem => ({
  Put: {
    TableName: playTable(),
    Item: {
      ...playKeys.idempotency(game.id, key),
      accepted: result.accepted,
      status: result.status,
      expiresAt: Math.floor(Date.parse(now) / 1000) + IDEMPOTENCY_TTL_SECONDS,
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/**
 * The writes of one plan, all or nothing: caps are re-checked by conditions, so a stale plan fails instead of
 * overshooting. `total` is the points the plan adds.
 */
export const planWrites = (input: PlanInput, p: PlayerPlan) => {
  const days = [...p.days].filter(([, d]) => d.add !== 0 || d.newSessions !== 0);
  const total = days.reduce((sum, [, d]) => sum + d.add, 0);
  const items: TransactItem[] = [
    ...days.map(([day, d]) => dayWrite(input, day, d)),
    ...(total > 0 ? [allTimeWrite(input, total)] : []),
    ...p.sessions.map((s) => sessionWrite(input, s)),
    ...p.idempotency.map(({ key, result }) => idempotencyWrite(input, key, result)),
  ];
  return { items, total };
};
