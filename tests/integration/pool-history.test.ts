// GET /rewards/game-rewards-pool/{gameId}/history against the local stack: a pool filled by purchases on several
// UTC days and paid by a settlement shows one row per day with what moved that day and the books at its end
// (matching the purchases, the settlement's allocation and its confirmed payouts, and the pool's totals now);
// cursor pages walk the same rows; an empty pool has none; bad limits and cursors are 400, no credentials 401,
// another studio 403, an unknown game 404.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as poolHandler } from '../../functions/rewards/get-game-rewards-pool.js';
import { handler as historyHandler } from '../../functions/rewards/get-game-rewards-pool-history.js';
import { sideEffects as rewardsDeps } from '../../functions/rewards/purchase-multiplier.js';
import { sideEffects as settleDeps } from '../../functions/settlement/settle-game-days.js';
import { payoutRecords, purchaseMultiplier, settleGameDay } from '../../lib/rewards/index.js';
import type { Settlement } from '../../lib/rewards/settlement/model.js';
import { createArcadiaClient } from '../../sdk/src/index.js';
import { registerGame } from '../helpers/games.js';
import { apiBaseUrl, invoke } from '../helpers/http.js';
import { idpToken } from '../helpers/idp.js';
import { commitmentOf, newMember, randomDay, type SeededDay, SOL, seedDay } from '../helpers/settlement.js';
import { createDeveloper, type Developer, hmacHeaders } from '../helpers/users.js';

interface Row {
  day: string;
  inflowLamports: string;
  purchases: number;
  allocatedLamports: string;
  paidLamports: string;
  feesLamports: string;
  payouts: number;
  endOfDay: {
    totalInflowLamports: string;
    totalAllocatedLamports: string;
    totalPaidLamports: string;
    totalFeesLamports: string;
    undistributedLamports: string;
    balanceLamports: string;
  };
}
interface Page {
  data: Row[];
  meta: { limit: number; nextCursor: string | null };
  error?: { code: string; details: Array<{ path: string }> };
}

const history = (
  gameId: string,
  query: Record<string, string> = {},
  who: Pick<Developer, 'apiKey' | 'secretKey'> | null = null,
) =>
  invoke<Page>(historyHandler, {
    method: 'GET',
    path: `/rewards/game-rewards-pool/${gameId}/history`,
    pathParameters: { gameId },
    ...(who ? { headers: hmacHeaders(who, 'GET', `/rewards/game-rewards-pool/${gameId}/history`) } : {}),
    query,
  });

const shift = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00.000Z`) + days * 86_400_000).toISOString().slice(0, 10);

type Moves = Pick<Row, 'day' | 'purchases' | 'payouts'> & {
  inflow: bigint;
  allocated: bigint;
  paid: bigint;
  fees: bigint;
};

describe('GET /rewards/game-rewards-pool/{gameId}/history', () => {
  let seeded: SeededDay;
  let settlement: Settlement;
  /** What each day moved, from the purchases' inflows and the settlement's records. */
  let expected: Moves[];

  beforeAll(async () => {
    // One purchase now (the seed's), one on the settled day, two on the day two days before it.
    seeded = await seedDay({ day: randomDay(), playerCount: 3 });
    const buyAt = async (at: string) => {
      const buyer = await newMember(SOL);
      const bought = await purchaseMultiplier(
        buyer.auth,
        { gameId: seeded.gameId, tier: '1.5x', durationSeconds: 3_600, idempotencyKey: randomUUID() },
        { ...rewardsDeps, now: () => new Date(at) },
      );
      if (bought.status !== 'completed') throw new Error(`purchase ${bought.status}`);
    };
    await buyAt(`${seeded.day}T09:00:00.000Z`);
    await buyAt(`${shift(seeded.day, -2)}T08:00:00.000Z`);
    await buyAt(`${shift(seeded.day, -2)}T23:59:59.000Z`);
    const outcome = await settleGameDay(seeded.gameId, seeded.day, {
      ...settleDeps,
      now: () => seeded.after,
    });
    if (outcome.status !== 'settled') throw new Error(`settlement ${outcome.status}`);
    settlement = outcome.settlement;

    const pool = await invoke<{
      data: { recentInflows: Array<{ lamports: string; at: string }> };
    }>(poolHandler, {
      method: 'GET',
      path: `/rewards/game-rewards-pool/${seeded.gameId}`,
      pathParameters: { gameId: seeded.gameId },
    });
    const byDay = new Map<string, Moves>();
    const at = (day: string) => {
      const found = byDay.get(day);
      if (found) return found;
      const fresh: Moves = { day, purchases: 0, payouts: 0, inflow: 0n, allocated: 0n, paid: 0n, fees: 0n };
      byDay.set(day, fresh);
      return fresh;
    };
    expect(pool.body.data.recentInflows).toHaveLength(4);
    for (const inflow of pool.body.data.recentInflows) {
      const m = at(inflow.at.slice(0, 10));
      m.inflow += BigInt(inflow.lamports);
      m.purchases += 1;
    }
    at(settlement.frozenAt.slice(0, 10)).allocated += BigInt(settlement.allocated);
    for (const record of await payoutRecords(seeded.gameId, seeded.day)) {
      if (record.status !== 'confirmed') continue;
      const m = at(String(record.completedAt).slice(0, 10));
      m.paid += BigInt(record.send);
      m.fees += BigInt(record.fee);
      m.payouts += 1;
    }
    // The run's commitment: its fee is allocated and booked as a fee on the day it landed.
    const commitment = await commitmentOf(seeded.gameId, seeded.day);
    if (commitment?.status === 'confirmed') {
      const m = at(String(commitment.confirmedAt).slice(0, 10));
      m.allocated += BigInt(commitment.fee ?? 0);
      m.fees += BigInt(commitment.fee ?? 0);
    }
    expected = [...byDay.values()].sort((a, b) => (a.day < b.day ? 1 : -1));
  }, 180_000);

  it("lists each day's movements and the books at its end, newest first, ending at the pool's totals", async () => {
    const res = await history(seeded.gameId, { limit: '100' }, seeded.dev);
    expect(res.status, res.text).toBe(200);
    const rows = res.body.data;
    expect(rows.map((r) => r.day)).toEqual(expected.map((m) => m.day));
    // The settled day's purchase, the two days before it, the allocation and payouts on the day after it, today.
    expect(rows.map((r) => r.day)).toEqual(
      expect.arrayContaining([shift(seeded.day, -2), seeded.day, shift(seeded.day, 1)]),
    );
    expect(expected.find((m) => m.day === shift(seeded.day, -2))?.purchases).toBe(2);
    expect(expected.some((m) => m.payouts > 0)).toBe(true);
    rows.forEach((row, i) => {
      const m = expected[i];
      expect(row).toMatchObject({
        day: m?.day,
        inflowLamports: String(m?.inflow),
        purchases: m?.purchases,
        allocatedLamports: String(m?.allocated),
        paidLamports: String(m?.paid),
        feesLamports: String(m?.fees),
        payouts: m?.payouts,
        earmarkedLamports: '0',
      });
    });
    // The books at the end of each day: the sum of the days up to it (the pool began with these purchases).
    let inflow = 0n;
    let allocated = 0n;
    let paid = 0n;
    let fees = 0n;
    for (const row of [...rows].reverse()) {
      inflow += BigInt(row.inflowLamports);
      allocated += BigInt(row.allocatedLamports);
      paid += BigInt(row.paidLamports);
      fees += BigInt(row.feesLamports);
      expect(row.endOfDay).toEqual({
        totalInflowLamports: String(inflow),
        totalAllocatedLamports: String(allocated),
        totalPaidLamports: String(paid),
        totalFeesLamports: String(fees),
        // No tournament deposits here: nothing held (tournament-deposits.test.ts covers them).
        totalEarmarkedLamports: '0',
        undistributedLamports: String(inflow - allocated),
        balanceLamports: String(inflow - paid - fees),
      });
    }
    // The newest day ends at the pool's totals now.
    const pool = await invoke<{
      data: Record<
        'totalInflowLamports' | 'totalAllocatedLamports' | 'totalPaidLamports' | 'totalFeesLamports',
        string
      >;
    }>(poolHandler, {
      method: 'GET',
      path: `/rewards/game-rewards-pool/${seeded.gameId}`,
      pathParameters: { gameId: seeded.gameId },
    });
    expect(rows[0]?.endOfDay).toMatchObject({
      totalInflowLamports: pool.body.data.totalInflowLamports,
      totalAllocatedLamports: pool.body.data.totalAllocatedLamports,
      totalPaidLamports: pool.body.data.totalPaidLamports,
      totalFeesLamports: pool.body.data.totalFeesLamports,
    });
    expect(res.body.meta).toEqual({ limit: 100, nextCursor: null });
  });

  it('walks the same rows in cursor pages, one day at a time and two at a time', async () => {
    const all = (await history(seeded.gameId, { limit: '100' }, seeded.dev)).body.data;
    for (const limit of ['1', '2']) {
      const walked: Row[] = [];
      let cursor: string | null | undefined;
      let pages = 0;
      do {
        const res = await history(seeded.gameId, { limit, ...(cursor ? { cursor } : {}) }, seeded.dev);
        expect(res.status, res.text).toBe(200);
        expect(res.body.data.length).toBeLessThanOrEqual(Number(limit));
        walked.push(...res.body.data);
        cursor = res.body.meta.nextCursor;
        pages += 1;
      } while (cursor && pages < 20);
      expect(walked).toEqual(all);
      expect(pages).toBe(Math.ceil(all.length / Number(limit)));
    }
  });

  it('answers the owner’s bearer token through the API, as the SDK types it', async () => {
    const client = createArcadiaClient({
      baseUrl: apiBaseUrl(),
      bearerToken: await idpToken(seeded.dev.subject.replace('did:local:', '')),
    });
    const res = await client.GET('/rewards/game-rewards-pool/{gameId}/history', {
      params: { path: { gameId: seeded.gameId }, query: { limit: 2 } },
    });
    expect(res.response.status).toBe(200);
    expect(res.data?.data.map((r) => r.day)).toEqual(expected.slice(0, 2).map((m) => m.day));
    expect(res.data?.meta.nextCursor).toEqual(expect.any(String));
  });

  it('answers no rows for a game whose pool is empty', async () => {
    const empty = await registerGame(seeded.dev);
    const res = await history(empty.id, {}, seeded.dev);
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ data: [], meta: { limit: 30, nextCursor: null } });
  });

  it('refuses a bad limit or cursor with 400, naming the field', async () => {
    for (const limit of ['0', '101', 'ten', '2.5']) {
      const res = await history(seeded.gameId, { limit }, seeded.dev);
      expect(res.status, limit).toBe(400);
      expect(res.body.error?.code).toBe('VALIDATION_ERROR');
      expect(res.body.error?.details.map((d) => d.path)).toContain('limit');
    }
    const first = await history(seeded.gameId, { limit: '1' }, seeded.dev);
    const cursor = first.body.meta.nextCursor ?? '';
    const [body = '', mac = ''] = cursor.split('.');
    // Another game of the same studio: a cursor of this one is not one of its pages.
    const other = await registerGame(seeded.dev);
    const forged = Buffer.from(JSON.stringify([seeded.gameId, seeded.day, '1', '0', '0', '0'])).toString(
      'base64url',
    );
    for (const [gameId, bad] of [
      [seeded.gameId, 'garbage'],
      [seeded.gameId, `${body}.${mac.slice(1)}`],
      [seeded.gameId, `${forged}.${mac}`],
      [seeded.gameId, `${cursor}.x`],
      [seeded.gameId, 'x'.repeat(1025)],
      [other.id, cursor],
    ] as const) {
      const res = await history(gameId, { cursor: bad }, seeded.dev);
      expect(res.status, bad.slice(0, 40)).toBe(400);
      expect(res.body.error?.code).toBe('VALIDATION_ERROR');
      expect(res.body.error?.details.map((d) => d.path)).toContain('cursor');
    }
    // The cursor itself is good.
    expect((await history(seeded.gameId, { limit: '1', cursor }, seeded.dev)).status).toBe(200);
  });

  it('answers 401 without credentials, 403 to another studio, 404 for an unknown game', async () => {
    expect((await history(seeded.gameId)).status).toBe(401);
    const stranger = await createDeveloper();
    const forbidden = await history(seeded.gameId, {}, stranger);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error?.code).toBe('FORBIDDEN');
    const unknown = await history(randomUUID(), {}, seeded.dev);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error?.code).toBe('NOT_FOUND');
  });
});
