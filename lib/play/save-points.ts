import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import * as z from 'zod';
import { dynamo, isConditionFailure } from '../adapters/dynamodb.js';
import { loadConfig } from '../config.js';
import type { GameRecord } from '../games/model.js';
import { requireOwnedGame } from '../games/read.js';
import { AppError } from '../http/errors.js';
import type { AuthContext } from '../http/handler.js';
import type { IdentityDirectory } from '../identity/directory.js';
import { resolveIdentifiers } from '../identity/resolver.js';
import { activeMultiplierBps, applyMultiplier, multiplierSlotKey } from '../rewards/multiplier.js';
import { userKeys } from '../users/keys.js';
import { defaultSessionId, playKeys, RISKY_THRESHOLD, utcDay } from './keys.js';
import { getItems, itemKey, playTable, transact } from './repository.js';
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

export interface SaveDeps {
  directory: IdentityDirectory;
  now?: () => Date;
}

interface Indexed {
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

/** Entries per transaction: 2 total items + sessions + idempotency records stay under DynamoDB's 100. */
const ENTRIES_PER_TRANSACTION = 40;
const MAX_ATTEMPTS = 6;
const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;

const room = (cap: number | null, used: number) =>
  cap === null ? Number.POSITIVE_INFINITY : Math.max(0, cap - used);

/**
 * Decide, from the current state, what each entry of one player may add (pure). An active multiplier
 * (`multiplierBps`) scales each entry's points before the caps; the idempotency record keeps the result, so a
 * replay never multiplies twice.
 */
const plan = (
  game: GameRecord,
  arcId: string,
  entries: Indexed[],
  state: Map<string, Item>,
  today: string,
  now: string,
  multiplierBps: number,
) => {
  const sessions = new Map<string, SessionPlan>();
  const days = new Map<string, DayPlan>();
  const dayPlan = (day: string) => {
    let d = days.get(day);
    if (!d) {
      const item = state.get(itemKey(playKeys.day(game.id, arcId, day)));
      d = {
        points: Number(item?.points ?? 0),
        sessions: Number(item?.sessions ?? 0),
        add: 0,
        newSessions: 0,
      };
      days.set(day, d);
    }
    return d;
  };
  const results: EntryResult[] = [];
  const idempotency: Array<{ key: string; result: EntryResult }> = [];
  const seenKeys = new Map<string, EntryResult>();
  const record = (result: EntryResult, key: string | undefined) => {
    results.push(result);
    if (key) {
      seenKeys.set(key, result);
      idempotency.push({ key, result });
    }
  };
  for (const { index, entry } of entries) {
    const sessionId = entry.sessionId ?? defaultSessionId(today, arcId);
    const base = { index, playerId: entry.playerId, arcId, sessionId, requested: entry.points };
    const key = entry.idempotencyKey;
    const earlier = key
      ? (seenKeys.get(key) ?? state.get(itemKey(playKeys.idempotency(game.id, key))))
      : undefined;
    if (earlier) {
      results.push({ ...base, accepted: Number(earlier.accepted ?? 0), status: 'duplicate', reason: null });
      continue;
    }
    let session = sessions.get(sessionId);
    if (!session) {
      const item = state.get(itemKey(playKeys.session(game.id, sessionId)));
      session = {
        sessionId,
        exists: Boolean(item),
        day: String(item?.day ?? today),
        points: Number(item?.points ?? 0),
        saves: Number(item?.saves ?? 0),
        capHits: Number(item?.capHits ?? 0),
        createdAt: String(item?.createdAt ?? now),
        add: 0,
        addSaves: 0,
        addCapHits: 0,
      };
      const closed = item && (item.status !== 'active' || item.arcId !== arcId || item.source !== 'backend');
      if (closed) {
        record({ ...base, accepted: 0, status: 'rejected', reason: 'session_closed' }, key);
        continue;
      }
      if (!item) {
        const day = dayPlan(today);
        if (game.maxSessionsPerDay !== null && day.sessions + day.newSessions >= game.maxSessionsPerDay) {
          record({ ...base, accepted: 0, status: 'rejected', reason: 'max_sessions_per_day' }, key);
          continue;
        }
        day.newSessions += 1;
      }
      sessions.set(sessionId, session);
    }
    const day = dayPlan(session.day);
    const sessionRoom = room(game.maxScorePerSession, session.points + session.add);
    const dayRoom = room(game.maxCumulativePointsPerDay, day.points + day.add);
    const points = applyMultiplier(entry.points, multiplierBps);
    const accepted = Math.min(points, sessionRoom, dayRoom);
    const reason: EntryReason | null =
      accepted === points
        ? null
        : sessionRoom <= dayRoom
          ? 'max_score_per_session'
          : 'max_cumulative_points_per_day';
    session.add += accepted;
    session.addSaves += 1;
    if (reason) session.addCapHits += 1;
    day.add += accepted;
    record(
      {
        ...base,
        accepted,
        status: reason === null ? 'accepted' : accepted > 0 ? 'clipped' : 'rejected',
        reason,
      },
      key,
    );
  }
  return { results, sessions: [...sessions.values()], days, idempotency };
};

type Plan = ReturnType<typeof plan>;

/** The transaction of one plan: caps are re-checked by conditions, so a stale plan fails instead of overshooting. */
const transaction = (game: GameRecord, arcId: string, p: Plan, now: string) => {
  const TableName = playTable();
  const items: Parameters<typeof transact>[0] = [];
  let total = 0;
  for (const [day, d] of p.days) {
    if (d.add === 0 && d.newSessions === 0) continue;
    total += d.add;
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
    items.push({
      Update: {
        TableName,
        Key: playKeys.day(game.id, arcId, day),
        UpdateExpression: `ADD points :add, sessions :ns SET boardDay = :board, arcId = :a, updatedAt = :now${d.add > 0 ? ', reachedAt = :now' : ''}`,
        ...(conditions.length ? { ConditionExpression: conditions.join(' AND ') } : {}),
        ExpressionAttributeValues: values,
      },
    });
  }
  if (total > 0) {
    items.push({
      Update: {
        TableName,
        Key: playKeys.allTime(game.id, arcId),
        UpdateExpression: 'ADD points :add SET boardAll = :g, arcId = :a, updatedAt = :now, reachedAt = :now',
        ExpressionAttributeValues: { ':add': total, ':g': game.id, ':a': arcId, ':now': now },
      },
    });
  }
  for (const s of p.sessions) {
    const risk = assessRisk({
      points: s.points + s.add,
      saves: s.saves + s.addSaves,
      capHits: s.capHits + s.addCapHits,
      maxScorePerSession: game.maxScorePerSession,
      durationSeconds: (Date.parse(now) - Date.parse(s.createdAt)) / 1000,
    });
    const values: Item = {
      ':add': s.add,
      ':saves': s.addSaves,
      ':hits': s.addCapHits,
      ':now': now,
      ':risk': risk.score,
      ':reasons': risk.reasons,
    };
    const sets = ['updatedAt = :now', 'riskScore = :risk', 'riskReasons = :reasons'];
    if (risk.score > RISKY_THRESHOLD) {
      sets.push('riskyGame = :g');
      values[':g'] = game.id;
    }
    let condition: string;
    if (s.exists) {
      condition = '#status = :active AND arcId = :a';
      values[':active'] = 'active';
      values[':a'] = arcId;
      if (game.maxScorePerSession !== null && s.add > 0) {
        condition += ' AND points <= :sessionLimit';
        values[':sessionLimit'] = game.maxScorePerSession - s.add;
      }
    } else {
      condition = 'attribute_not_exists(pk)';
      sets.push(
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
      );
      Object.assign(values, {
        ':g': game.id,
        ':sid': s.sessionId,
        ':a': arcId,
        ':day': s.day,
        ':source': 'backend',
        ':active': 'active',
        ':sort': `${now}#${s.sessionId}`,
        ':zero': 0,
      });
    }
    items.push({
      Update: {
        TableName,
        Key: playKeys.session(game.id, s.sessionId),
        UpdateExpression: `ADD points :add, saves :saves, capHits :hits SET ${sets.join(', ')}${risk.score > RISKY_THRESHOLD ? '' : ' REMOVE riskyGame'}`,
        ConditionExpression: condition,
        ExpressionAttributeNames: {
          '#status': 'status',
          ...(s.exists ? {} : { '#day': 'day', '#source': 'source' }),
        },
        ExpressionAttributeValues: values,
      },
    });
  }
  const expiresAt = Math.floor(Date.parse(now) / 1000) + IDEMPOTENCY_TTL_SECONDS;
  for (const { key, result } of p.idempotency) {
    items.push({
      Put: {
        TableName,
        Item: {
          ...playKeys.idempotency(game.id, key),
          accepted: result.accepted,
          status: result.status,
          expiresAt,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    });
  }
  return { items, total };
};

/** Save one player's entries: read, plan, write conditionally; a lost race re-reads and plans again. */
/** Every item one player's plan reads: today's total, the multiplier slot, the sessions, the idempotency records. */
const stateKeys = (game: GameRecord, arcId: string, entries: Indexed[], today: string) => {
  const sessionIds = [
    ...new Set(entries.map(({ entry }) => entry.sessionId ?? defaultSessionId(today, arcId))),
  ];
  return [
    playKeys.day(game.id, arcId, today),
    multiplierSlotKey(game.id, arcId),
    ...sessionIds.map((sid) => playKeys.session(game.id, sid)),
    ...entries.flatMap(({ entry }) =>
      entry.idempotencyKey ? [playKeys.idempotency(game.id, entry.idempotencyKey)] : [],
    ),
  ];
};

/** State read for every player of a batch at once, used by each player's first attempt. */
interface Prefetched {
  at: Date;
  state: Map<string, Item>;
}

const savePlayer = async (
  game: GameRecord,
  arcId: string,
  entries: Indexed[],
  deps: SaveDeps,
  prefetched?: Prefetched,
) => {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const first = attempt === 0 ? prefetched : undefined;
    const at = first?.at ?? deps.now?.() ?? new Date();
    const now = at.toISOString();
    const today = utcDay(at);
    // A retry lost a race: read again, strongly consistent, just this player's items.
    const state = first ? new Map(first.state) : await getItems(stateKeys(game, arcId, entries, today));
    // Sessions opened on an earlier day keep counting towards that day: read those day totals too.
    const otherDays = [
      ...new Set(
        [...state.values()].filter((i) => i.sk === 'SESSION' && i.day !== today).map((i) => String(i.day)),
      ),
    ];
    if (otherDays.length) {
      for (const [k, v] of await getItems(otherDays.map((d) => playKeys.day(game.id, arcId, d))))
        state.set(k, v);
    }
    const multiplierBps = activeMultiplierBps(state.get(itemKey(multiplierSlotKey(game.id, arcId))), at);
    const p = plan(game, arcId, entries, state, today, now, multiplierBps);
    const { items, total } = transaction(game, arcId, p, now);
    if (items.length === 0) return { results: p.results, total: 0 };
    try {
      await transact(items);
      return { results: p.results, total };
    } catch (error) {
      if (!isConditionFailure(error) && (error as { name?: string }).name !== 'TransactionConflictException')
        throw error;
      await new Promise((r) => setTimeout(r, Math.random() * 20 * (attempt + 1)));
    }
  }
  throw new AppError('CONFLICT', 'Too many concurrent saves for one player; retry the batch');
};

const usersTable = () => loadConfig(z.object({ USERS_TABLE: z.string().min(1) })).USERS_TABLE;

/** Best-effort counter for /user/me/stats (outside the saves' transactions, so it never contends with them). */
const countSaved = async (arcId: string, points: number) => {
  if (points <= 0) return;
  await dynamo()
    .send(
      new UpdateCommand({
        TableName: usersTable(),
        Key: userKeys.profile(arcId),
        UpdateExpression: 'SET stats.pointsSaved = if_not_exists(stats.pointsSaved, :zero) + :p',
        ExpressionAttributeValues: { ':zero': 0, ':p': points },
      }),
    )
    .catch(() => undefined);
};

/**
 * POST /play/dev/batch-save-points: identifiers resolved (unknown wallets, emails and handles get users), then
 * each player's entries applied in one conditional transaction — players in parallel. Caps can clip or reject
 * an entry but are never exceeded, and an idempotency key is applied at most once.
 */
export const batchSavePoints = async (
  auth: AuthContext,
  input: { gameId: string; entries: SaveEntry[] },
  deps: SaveDeps,
) => {
  const game = await requireOwnedGame(auth, input.gameId);
  const mapping = await resolveIdentifiers([...new Set(input.entries.map((e) => e.playerId))], {
    directory: deps.directory,
  });
  const byPlayer = new Map<string, Indexed[]>();
  input.entries.forEach((entry, index) => {
    const arcId = mapping[entry.playerId] ?? '';
    byPlayer.set(arcId, [...(byPlayer.get(arcId) ?? []), { index, entry }]);
  });
  const results: EntryResult[] = [];
  let saved = 0;
  // One batched read of every player's first chunk (BatchGetItem, 100 keys a call, in parallel), instead of
  // one read per player.
  const at = deps.now?.() ?? new Date();
  const state = await getItems(
    [...byPlayer].flatMap(([arcId, entries]) =>
      stateKeys(game, arcId, entries.slice(0, ENTRIES_PER_TRANSACTION), utcDay(at)),
    ),
  );
  await Promise.all(
    [...byPlayer].map(async ([arcId, entries]) => {
      for (let i = 0; i < entries.length; i += ENTRIES_PER_TRANSACTION) {
        const chunk = entries.slice(i, i + ENTRIES_PER_TRANSACTION);
        const out = await savePlayer(game, arcId, chunk, deps, i === 0 ? { at, state } : undefined);
        results.push(...out.results);
        saved += out.total;
      }
    }),
  );
  await countSaved(auth.userId, saved);
  return { playerIdToArcId: mapping, results: results.sort((a, b) => a.index - b.index) };
};
