// The developer's session listings: a game's sessions and its risky ones, from their indexes, in opaque cursor
// pages.
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import type { AuthContext } from '../core/auth.js';
import { AppError } from '../core/errors.js';
import { requireOwnedGame } from '../games/index.js';
import { resolveKnownIdentifiers } from '../user/index.js';
import { queryIndex } from './repository.js';

/** What a cursor may hold: the keys of the table and of the sessions' indexes (anything else is not ours). */
const CURSOR_KEYS = new Set(['pk', 'sk', 'sessionGame', 'sessionSort', 'riskyGame', 'riskScore']);

type Item = Record<string, NativeAttributeValue>;

const encodeCursor = (key: Item | undefined) =>
  key ? Buffer.from(JSON.stringify(key)).toString('base64url') : null;
const decodeCursorError = () =>
  new AppError('VALIDATION_ERROR', 'Invalid cursor', [
    { path: 'cursor', message: 'not a cursor from this API' },
  ]);
const decodeCursor = (cursor: string | undefined): Item | undefined => {
  if (!cursor) return undefined;
  try {
    const value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    const valid =
      typeof value === 'object' &&
      value !== null &&
      !Array.isArray(value) &&
      Object.entries(value).every(
        ([k, v]) => CURSOR_KEYS.has(k) && (typeof v === 'string' || typeof v === 'number'),
      );
    if (valid) return value as Item;
  } catch {
    // fall through to the error below
  }
  throw decodeCursorError();
};

/** A stored session as the API shows it. */
export const sessionView = (item: Item) => ({
  sessionId: String(item.sessionId),
  gameId: String(item.gameId),
  arcId: String(item.arcId),
  source: item.source === 'sdk' ? ('sdk' as const) : ('backend' as const),
  status: (['active', 'committed', 'invalidated'].includes(String(item.status)) ? item.status : 'active') as
    | 'active'
    | 'committed'
    | 'invalidated',
  day: String(item.day),
  points: Number(item.points ?? 0),
  pendingPoints: Number(item.pendingPoints ?? 0),
  saves: Number(item.saves ?? 0),
  capHits: Number(item.capHits ?? 0),
  riskScore: Number(item.riskScore ?? 0),
  riskReasons: Array.isArray(item.riskReasons) ? item.riskReasons.map(String) : [],
  createdAt: String(item.createdAt),
  updatedAt: String(item.updatedAt ?? item.createdAt),
  invalidatedPoints: item.invalidatedPoints === undefined ? null : Number(item.invalidatedPoints),
});

/**
 * Read pages of an index until `limit` items pass the filter (DynamoDB applies Limit before filters), returning
 * the cursor of the last item returned.
 */
const filteredPage = async (
  base: Omit<Parameters<typeof queryIndex>[0], 'start' | 'limit'>,
  limit: number,
  cursor: string | undefined,
) => {
  const out: Item[] = [];
  let start = decodeCursor(cursor);
  let next: Item | undefined;
  do {
    const page = await queryIndex({ ...base, limit: limit - out.length, start }).catch((error: unknown) => {
      // A cursor of the right shape but for another index or game.
      if ((error as { name?: string }).name === 'ValidationException') throw decodeCursorError();
      throw error;
    });
    out.push(...page.items);
    start = page.next;
    next = page.next;
  } while (start && out.length < limit);
  return { items: out, nextCursor: encodeCursor(next) };
};

/** GET /play/dev/sessions/{gameId}: newest first, optional player and status filters, cursor pages. */
export const devSessions = async (
  auth: AuthContext,
  gameId: string,
  query: {
    limit: number;
    cursor?: string | undefined;
    player?: string | undefined;
    status?: string | undefined;
  },
) => {
  const game = await requireOwnedGame(auth, gameId);
  const arcId = query.player ? (await resolveKnownIdentifiers([query.player]))[query.player] : undefined;
  if (query.player && !arcId) return { data: [], meta: { limit: query.limit, nextCursor: null } };
  const filters: string[] = [];
  const values: Item = {};
  if (arcId) {
    filters.push('arcId = :a');
    values[':a'] = arcId;
  }
  if (query.status) {
    filters.push('#status = :s');
    values[':s'] = query.status;
  }
  const { items, nextCursor } = await filteredPage(
    {
      index: 'byGameSessions',
      key: 'sessionGame',
      value: game.id,
      forward: false,
      ...(filters.length
        ? {
            filter: {
              expression: filters.join(' AND '),
              values,
              ...(query.status ? { names: { '#status': 'status' } } : {}),
            },
          }
        : {}),
    },
    query.limit,
    query.cursor,
  );
  return { data: items.map(sessionView), meta: { limit: query.limit, nextCursor } };
};

/** GET /play/dev/risky-sessions/{gameId}: the sparse index of flagged sessions, highest risk first. */
export const riskySessions = async (
  auth: AuthContext,
  gameId: string,
  query: { limit: number; cursor?: string | undefined },
) => {
  const game = await requireOwnedGame(auth, gameId);
  const { items, nextCursor } = await filteredPage(
    { index: 'byRiskySessions', key: 'riskyGame', value: game.id, forward: false },
    query.limit,
    query.cursor,
  );
  return { data: items.map(sessionView), meta: { limit: query.limit, nextCursor } };
};
