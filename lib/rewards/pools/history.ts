// GET /rewards/game-rewards-pool/{gameId}/history: a pool's books day by day, newest first, in cursor pages. Each
// row is a UTC day on which the books moved (./pool-days.ts) with the books at the end of that day, worked back
// from the pool item's totals: the pool item is always the sum of its days, so the end of the newest day is the
// totals now, and each older day ends where the next one started. A page costs one Query of its days (and, for the
// first page, one TransactGetItems of the pool item and the days that can still move); the cursor carries the
// books where the page stopped, signed, so the next page costs the same whatever the pool's age.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { QueryCommand, TransactGetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../../adapters/dynamodb.js';
import { derivedKey } from '../../adapters/secrets.js';
import type { AuthContext } from '../../core/auth.js';
import { errors } from '../../core/errors.js';
import { requireOwnedGame } from '../../games/index.js';
import { rewardsKeys, rewardsTable } from '../keys.js';
import type { Item } from '../repository.js';

/** The pool's running totals (lamports). */
interface Books {
  inflow: bigint;
  allocated: bigint;
  paid: bigint;
  fees: bigint;
  /** Deposits held for tournament periods not closed yet (not the pool's to distribute). */
  earmarked: bigint;
}

/** One day's movements, as stored. */
interface PoolDay {
  day: string;
  inflow: bigint;
  purchases: number;
  allocated: bigint;
  paid: bigint;
  fees: bigint;
  payouts: number;
  earmarked: bigint;
}

const DAY_MS = 86_400_000;
const ZERO: Books = { inflow: 0n, allocated: 0n, paid: 0n, fees: 0n, earmarked: 0n };

const big = (value: unknown) => BigInt(typeof value === 'number' || typeof value === 'string' ? value : 0);

const toDay = (item: Item): PoolDay => ({
  day: String(item.day),
  inflow: big(item.inflowLamports),
  purchases: Number(item.purchases ?? 0),
  allocated: big(item.allocatedLamports),
  paid: big(item.paidLamports),
  fees: big(item.feesLamports),
  payouts: Number(item.payouts ?? 0),
  earmarked: big(item.earmarkedLamports),
});

const shiftDay = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00.000Z`) + days * DAY_MS).toISOString().slice(0, 10);

// --- the cursor: where the page stopped (its last day) and the books at the start of that day, signed ---

/** Derived from the secrets key, like the session-token key: one secret to configure. */
const signingKey = () => derivedKey('arcadia pool history cursor v1');
const mac = (body: string) => createHmac('sha256', signingKey()).update(body).digest();

interface Cursor {
  /** The page's last day: the next page holds the days before it. */
  before: string;
  /** The books at the start of `before` (the end of the day before it). */
  books: Books;
}

const encodeCursor = (gameId: string, cursor: Cursor): string => {
  const { inflow, allocated, paid, fees, earmarked } = cursor.books;
  const body = Buffer.from(
    JSON.stringify([gameId, cursor.before, ...[inflow, allocated, paid, fees, earmarked].map(String)]),
  ).toString('base64url');
  return `${body}.${mac(body).toString('base64url')}`;
};

const badCursor = () =>
  errors.validation('Invalid cursor', [{ path: 'cursor', message: 'not a cursor of this game’s history' }]);

const AMOUNT = /^(0|-?[1-9][0-9]*)$/;
const DAY = /^\d{4}-\d{2}-\d{2}$/;

const decodeCursor = (gameId: string, cursor: string): Cursor => {
  const [body = '', signature = '', extra] = cursor.split('.');
  const expected = mac(body);
  const given = Buffer.from(signature, 'base64url');
  if (extra !== undefined || given.length !== expected.length || !timingSafeEqual(given, expected))
    throw badCursor();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  // Signed by us, so well formed; the game is checked because a studio may own several.
  if (!Array.isArray(value) || value.length !== 7 || value[0] !== gameId) throw badCursor();
  const [, before, ...amounts] = value as unknown[];
  if (typeof before !== 'string' || !DAY.test(before)) throw badCursor();
  if (!amounts.every((a) => typeof a === 'string' && AMOUNT.test(a))) throw badCursor();
  const [inflow = 0n, allocated = 0n, paid = 0n, fees = 0n, earmarked = 0n] = amounts.map((a) =>
    BigInt(String(a)),
  );
  return { before, books: { inflow, allocated, paid, fees, earmarked } };
};

// --- the reads ---

/** Up to `limit` days before `before` (all days when absent), newest first: one Query. */
const daysBefore = async (gameId: string, before: string | undefined, limit: number): Promise<PoolDay[]> => {
  const { Items = [] } = await dynamo().send(
    new QueryCommand({
      TableName: rewardsTable(),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': rewardsKeys.poolPartition(gameId),
        ':from': rewardsKeys.POOL_DAY_PREFIX,
        ':to': rewardsKeys.poolDay(gameId, before ? shiftDay(before, -1) : '9999-12-31').sk,
      },
      ScanIndexForward: false,
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  return Items.map(toDay);
};

/**
 * The pool's totals and the days that can still move (yesterday, today and tomorrow: a writer's clock a little
 * ahead), read together in one TransactGetItems: a purchase landing meanwhile is in both or in neither.
 */
const currentBooks = async (gameId: string, now: Date) => {
  const today = now.toISOString().slice(0, 10);
  const live = [-1, 0, 1].map((k) => shiftDay(today, k));
  const { Responses = [] } = await dynamo().send(
    new TransactGetCommand({
      TransactItems: [rewardsKeys.pool(gameId), ...live.map((day) => rewardsKeys.poolDay(gameId, day))].map(
        (Key) => ({ Get: { TableName: rewardsTable(), Key } }),
      ),
    }),
  );
  const [pool, ...days] = Responses.map((r) => r.Item);
  const books: Books = pool
    ? {
        inflow: big(pool.totalInflowLamports),
        allocated: big(pool.totalAllocatedLamports),
        paid: big(pool.totalPaidLamports),
        fees: big(pool.totalFeesLamports),
        earmarked: big(pool.totalEarmarkedLamports),
      }
    : ZERO;
  return { books, live: days.flatMap((item) => (item ? [toDay(item)] : [])) };
};

/** The first page's days: the Query's, with the days that can still move as the snapshot read them. */
const mergeLive = (queried: PoolDay[], live: PoolDay[], limit: number) => {
  const byDay = new Map(queried.map((d) => [d.day, d]));
  for (const d of live) byDay.set(d.day, d);
  const merged = [...byDay.values()].sort((a, b) => (a.day < b.day ? 1 : -1));
  // A full Query covered the days down to its last one only: older days come with the next page.
  const floor = queried.length > limit ? queried[queried.length - 1]?.day : undefined;
  return floor ? merged.filter((d) => d.day >= floor) : merged;
};

const lamports = (value: bigint) => value.toString();

const rowOf = (d: PoolDay, end: Books) => ({
  day: d.day,
  inflowLamports: lamports(d.inflow),
  purchases: d.purchases,
  allocatedLamports: lamports(d.allocated),
  paidLamports: lamports(d.paid),
  feesLamports: lamports(d.fees),
  payouts: d.payouts,
  earmarkedLamports: lamports(d.earmarked),
  endOfDay: {
    totalInflowLamports: lamports(end.inflow),
    totalAllocatedLamports: lamports(end.allocated),
    totalPaidLamports: lamports(end.paid),
    totalFeesLamports: lamports(end.fees),
    totalEarmarkedLamports: lamports(end.earmarked),
    undistributedLamports: lamports(end.inflow - end.allocated - end.earmarked),
    balanceLamports: lamports(end.inflow - end.paid - end.fees),
  },
});

/** GET /rewards/game-rewards-pool/{gameId}/history: the game's creator or owner, newest day first. */
export const poolHistory = async (
  auth: AuthContext,
  gameId: string,
  query: { limit: number; cursor?: string | undefined },
  now: () => Date = () => new Date(),
) => {
  const game = await requireOwnedGame(auth, gameId);
  const from = query.cursor ? decodeCursor(game.id, query.cursor) : undefined;
  const [queried, current] = await Promise.all([
    daysBefore(game.id, from?.before, query.limit + 1),
    from ? undefined : currentBooks(game.id, now()),
  ]);
  const days = current ? mergeLive(queried, current.live, query.limit) : queried;
  const page = days.slice(0, query.limit);
  let books = from?.books ?? current?.books ?? ZERO;
  const data = page.map((d) => {
    const row = rowOf(d, books);
    books = {
      inflow: books.inflow - d.inflow,
      allocated: books.allocated - d.allocated,
      paid: books.paid - d.paid,
      fees: books.fees - d.fees,
      earmarked: books.earmarked - d.earmarked,
    };
    return row;
  });
  const last = page[page.length - 1];
  const nextCursor =
    days.length > query.limit && last ? encodeCursor(game.id, { before: last.day, books }) : null;
  return { data, meta: { limit: query.limit, nextCursor } };
};
