// GET /games/insights/{gameId} against the local stack. The property: after random studio saves (new and open
// sessions, replayed idempotency keys), SDK sessions (opened, flushed, committed, some commits retried),
// invalidations (the same day or later) over several simulated UTC days, every day's figures
// equal a recount of the stored sessions and totals, and the retention cohorts equal a brute-force count of who
// played when. Then the pool's side: purchases on several days and a settlement's payouts against the pool's
// inflows and payout records. Then the access rules: another studio 403, no credentials 401, an unknown game 404,
// a reversed or too long range 400, and the default range (30 days ending today).
import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as insightsHandler } from '../../functions/insights/get-game-insights.js';
import { handler as poolHandler } from '../../functions/rewards/get-game-rewards-pool.js';
import { sideEffects as rewardsDeps } from '../../functions/rewards/purchase-multiplier.js';
import { sideEffects as settleDeps } from '../../functions/settlement/settle-game-days.js';
import { handler as sendTestHandler } from '../../functions/webhooks/send-webhook-test.js';
import { dynamo } from '../../lib/adapters/dynamodb.js';
import { settings } from '../../lib/core/config.js';
import type { GameInsights } from '../../lib/insights/index.js';
import { commit, flush, invalidateSessions, openSession } from '../../lib/play/index.js';
import { flushHash } from '../../lib/play/protocol/chain.js';
import { batchSavePoints } from '../../lib/play/saves/save.js';
import { payoutRecords, purchaseMultiplier, settleGameDay } from '../../lib/rewards/index.js';
import { createTournament, joinTournament } from '../../lib/tournaments/index.js';
import { localDirectory } from '../../lib/user/directory.js';
import type { SqsPoller } from '../../scripts/stack/sqs-poller.js';
import { registerGame } from '../helpers/games.js';
import { invoke } from '../helpers/http.js';
import { newMember, randomDay, type SeededDay, SOL, seedDay } from '../helpers/settlement.js';
import { createDeveloper, type Developer, hmacHeaders } from '../helpers/users.js';
import { type Receiver, startDeliveryWorker, subscribeReceiver, waitFor } from '../helpers/webhooks.js';

type Item = Record<string, NativeAttributeValue>;
interface Answer {
  data: GameInsights;
  error?: { code: string; details: Array<{ path: string }> };
}

const DAY_MS = 86_400_000;
const shift = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00.000Z`) + days * DAY_MS).toISOString().slice(0, 10);

const insights = (
  gameId: string,
  query: Record<string, string>,
  who: Pick<Developer, 'apiKey' | 'secretKey'> | null,
) =>
  invoke<Answer>(insightsHandler, {
    method: 'GET',
    path: `/games/insights/${gameId}`,
    pathParameters: { gameId },
    ...(who ? { headers: hmacHeaders(who, 'GET', `/games/insights/${gameId}`) } : {}),
    query,
  });

/** Every play-table item whose key starts with `prefix` (a Scan: the test's recount, never the API's). */
const scanPrefix = async (prefix: string): Promise<Item[]> => {
  const items: Item[] = [];
  let start: Item | undefined;
  do {
    const out = await dynamo().send(
      new ScanCommand({
        TableName: settings().PLAY_TABLE,
        FilterExpression: 'begins_with(pk, :p)',
        ExpressionAttributeValues: { ':p': prefix },
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
};

/** The simulated days, as offsets from the first: next days, a week and a month later. */
const OFFSETS = [0, 1, 2, 7, 8, 30, 31];

type Op =
  | { kind: 'save'; players: number[]; points: number[]; newSession: boolean; replay: boolean }
  | { kind: 'sdk'; player: number; deltas: number[]; retryCommit: boolean; commit: boolean }
  | { kind: 'invalidate'; pick: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('save' as const),
    players: fc.uniqueArray(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 4 }),
    points: fc.array(fc.integer({ min: 1, max: 400 }), { minLength: 4, maxLength: 4 }),
    newSession: fc.boolean(),
    replay: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('sdk' as const),
    player: fc.integer({ min: 0, max: 5 }),
    deltas: fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 3 }),
    retryCommit: fc.boolean(),
    commit: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('invalidate' as const), pick: fc.nat() }),
);

describe('GET /games/insights/{gameId}: the figures against a recount', () => {
  let dev: Developer;
  let players: Array<{ arcId: string }>;

  beforeAll(async () => {
    dev = await createDeveloper();
    players = await Promise.all(Array.from({ length: 6 }, () => newMember()));
  }, 120_000);

  const studio = () => ({ scheme: 'hmac' as const, userId: dev.arcId, apiKey: dev.apiKey });

  /** A studio save of `op` at `at` (and its replay: deduplicated by its keys); the sessions its entries named. */
  const save = async (gameId: string, op: Extract<Op, { kind: 'save' }>, at: Date, key: string) => {
    const sessionId = op.newSession ? `s-${randomUUID()}` : undefined;
    const entries = op.players.map((p, i) => ({
      playerId: players[p]?.arcId ?? '',
      points: op.points[i] ?? 1,
      ...(sessionId ? { sessionId: `${sessionId}-${p}` } : {}),
      idempotencyKey: `${key}-${p}`,
    }));
    const deps = { directory: localDirectory, now: () => at };
    const saved = await batchSavePoints(studio(), { gameId, entries }, deps);
    if (op.replay) await batchSavePoints(studio(), { gameId, entries }, deps);
    return saved.results.map((r) => r.sessionId);
  };

  /** An SDK session of `op` opened at `at`, flushed, committed (and the commit retried) when asked; its id. */
  const sdk = async (gameId: string, op: Extract<Op, { kind: 'sdk' }>, at: Date) => {
    const player = { scheme: 'bearer' as const, userId: players[op.player]?.arcId ?? '' };
    const opened = await openSession(player, gameId, at);
    const session = {
      scheme: 'session' as const,
      userId: player.userId,
      sessionId: opened.sessionId,
      gameId,
    };
    let head = opened.chainSeed;
    let total = 0;
    for (const [i, delta] of op.deltas.entries()) {
      const when = at.getTime() + (i + 1) * 2_000;
      const link = { seq: i + 1, delta, clientTime: when, prevHash: head };
      const hash = flushHash(opened.sessionId, link);
      await flush(session, { ...link, hash }, new Date(when));
      head = hash;
      total += delta;
    }
    if (op.commit) {
      const input = { seq: op.deltas.length, head, total };
      const when = new Date(at.getTime() + 20_000);
      await commit(session, input, when);
      if (op.retryCommit) await commit(session, input, when);
    }
    return opened.sessionId;
  };

  /** Runs the ops of each simulated day on a game, a minute apart from 08:00 UTC. */
  const play = async (gameId: string, first: string, days: Op[][]) => {
    const sessions: string[] = [];
    for (const [d, ops] of days.entries()) {
      const day = shift(first, OFFSETS[d] ?? 0);
      for (const [k, op] of ops.entries()) {
        const at = new Date(Date.parse(`${day}T08:00:00.000Z`) + k * 60_000);
        if (op.kind === 'save') sessions.push(...(await save(gameId, op, at, `${gameId}-${d}-${k}`)));
        else if (op.kind === 'sdk') sessions.push(await sdk(gameId, op, at));
        else if (sessions.length > 0) {
          const sessionIds = [sessions[op.pick % sessions.length] ?? ''];
          await invalidateSessions(studio(), { gameId, sessionIds }, at);
        }
      }
    }
  };

  /** The figures recounted from the stored sessions and day totals, and the retention counted by brute force. */
  const recount = async (gameId: string, from: string, to: string) => {
    const stored = await scanPrefix(`SESSION#${gameId}#`);
    const totals = (await scanPrefix(`TOTAL#${gameId}#`)).filter((t) => String(t.sk).startsWith('DAY#'));
    const playedOn = new Map<string, Set<string>>();
    for (const s of stored) {
      const counted =
        s.source === 'backend' || (s.committedAt !== undefined && Number(s.committedPoints) > 0);
      if (!counted) continue;
      const set = playedOn.get(String(s.day)) ?? new Set<string>();
      set.add(String(s.arcId));
      playedOn.set(String(s.day), set);
    }
    const firstDay = new Map<string, string>();
    for (const day of [...playedOn.keys()].sort())
      for (const arcId of playedOn.get(day) ?? []) if (!firstDay.has(arcId)) firstDay.set(arcId, day);
    const days: string[] = [];
    for (let d = from; d <= to; d = shift(d, 1)) days.push(d);
    const of = (day: string) => stored.filter((s) => s.day === day);
    const rows = days.map((day) => ({
      day,
      activePlayers: playedOn.get(day)?.size ?? 0,
      newPlayers: [...firstDay.values()].filter((f) => f === day).length,
      sessions: {
        backend: of(day).filter((s) => s.source === 'backend').length,
        sdk: of(day).filter((s) => s.source === 'sdk' && s.committedAt !== undefined).length,
      },
      points: of(day).reduce((sum, s) => sum + Number(s.points ?? 0), 0),
      invalidatedSessions: stored.filter((s) => String(s.invalidatedAt ?? '').startsWith(day)).length,
    }));
    const dayTotalPoints = (day: string) =>
      totals.filter((t) => t.sk === `DAY#${day}`).reduce((sum, t) => sum + Number(t.points ?? 0), 0);
    const back = (cohort: string, n: number) =>
      [...firstDay].filter(([arcId, f]) => f === cohort && playedOn.get(shift(cohort, n))?.has(arcId)).length;
    const retention = days.flatMap((cohort) => {
      const count = [...firstDay.values()].filter((f) => f === cohort).length;
      return count > 0
        ? [{ cohort, players: count, day1: back(cohort, 1), day7: back(cohort, 7), day30: back(cohort, 30) }]
        : [];
    });
    const flagged = stored.filter((s) => Number(s.riskScore ?? 0) > 0.5).length;
    return { rows, dayTotalPoints, retention, flagged };
  };

  it('counts exactly what the saves, commits and invalidations did, day by day, and the cohorts', async () => {
    // What the runs exercised, summed: a run of nothing but empty days would prove nothing.
    const seen = { sdk: 0, invalidated: 0, returns: 0, points: 0 };
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(opArb, { minLength: 1, maxLength: 4 }), {
          minLength: OFFSETS.length,
          maxLength: OFFSETS.length,
        }),
        async (days) => {
          const game = await registerGame(dev, { maxScorePerSession: 500, maxCumulativePointsPerDay: 900 });
          // Far enough back that day 31 is past: every cohort's day N is known.
          const start = shift(randomDay(), -40);
          await play(game.id, start, days);
          const to = shift(start, 31);
          const res = await insights(game.id, { from: start, to }, dev);
          expect(res.status, res.text).toBe(200);
          const expected = await recount(game.id, start, to);
          const got = res.body.data;
          expect(got.days).toHaveLength(32);
          expect(
            got.days.map((d) => ({
              day: d.day,
              activePlayers: d.activePlayers,
              newPlayers: d.newPlayers,
              sessions: d.sessions,
              points: d.points,
              invalidatedSessions: d.invalidatedSessions,
            })),
          ).toEqual(expected.rows);
          for (const d of got.days) expect(d.points).toBe(expected.dayTotalPoints(d.day));
          expect(got.days.reduce((sum, d) => sum + d.flaggedSessions, 0)).toBe(expected.flagged);
          expect(got.retention).toEqual(expected.retention);
          for (const d of got.days) {
            seen.sdk += d.sessions.sdk;
            seen.invalidated += d.invalidatedSessions;
            seen.points += d.points;
          }
          for (const c of got.retention) seen.returns += (c.day1 ?? 0) + (c.day7 ?? 0) + (c.day30 ?? 0);
        },
      ),
      { numRuns: 8, endOnFailure: true },
    );
    expect(seen.sdk).toBeGreaterThan(0);
    expect(seen.invalidated).toBeGreaterThan(0);
    expect(seen.returns).toBeGreaterThan(0);
    expect(seen.points).toBeGreaterThan(0);
  }, 480_000);

  it('counts a player once a day however many saves, and a replayed batch not at all', async () => {
    const game = await registerGame(dev);
    const day = shift(randomDay(), -40);
    const [a, b] = players;
    const saveAt = (
      at: string,
      entries: Array<{ playerId: string; points: number; idempotencyKey?: string }>,
    ) =>
      batchSavePoints(
        studio(),
        { gameId: game.id, entries },
        { directory: localDirectory, now: () => new Date(at) },
      );
    const batch = [
      { playerId: a?.arcId ?? '', points: 10, idempotencyKey: 'k1' },
      { playerId: a?.arcId ?? '', points: 5, idempotencyKey: 'k2' },
      { playerId: b?.arcId ?? '', points: 7, idempotencyKey: 'k3' },
    ];
    await saveAt(`${day}T01:00:00.000Z`, batch);
    await saveAt(`${day}T01:00:01.000Z`, batch);
    await saveAt(`${day}T02:00:00.000Z`, [{ playerId: a?.arcId ?? '', points: 1 }]);
    await saveAt(`${shift(day, 1)}T02:00:00.000Z`, [{ playerId: b?.arcId ?? '', points: 2 }]);
    const res = await insights(game.id, { from: day, to: shift(day, 1) }, dev);
    expect(res.status, res.text).toBe(200);
    expect(
      res.body.data.days.map((d) => [d.activePlayers, d.newPlayers, d.points, d.sessions.backend]),
    ).toEqual([
      [2, 2, 23, 2],
      [1, 0, 2, 1],
    ]);
    expect(res.body.data.retention).toEqual([{ cohort: day, players: 2, day1: 1, day7: 0, day30: 0 }]);
  }, 60_000);
});

describe('GET /games/insights/{gameId}: sales and payouts are the pool’s day books', () => {
  let seeded: SeededDay;
  beforeAll(async () => {
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
  }, 180_000);

  it('shows each day’s purchases (count, lamports, USD at sale) and confirmed payouts (lamports, USD, count)', async () => {
    const pool = await invoke<{
      data: { recentInflows: Array<{ lamports: string; usd: number; at: string }> };
    }>(poolHandler, {
      method: 'GET',
      path: `/rewards/game-rewards-pool/${seeded.gameId}`,
      pathParameters: { gameId: seeded.gameId },
    });
    const sales = new Map<string, { count: number; lamports: bigint; usdCents: number }>();
    for (const inflow of pool.body.data.recentInflows) {
      const day = inflow.at.slice(0, 10);
      const s = sales.get(day) ?? { count: 0, lamports: 0n, usdCents: 0 };
      s.count += 1;
      s.lamports += BigInt(inflow.lamports);
      s.usdCents += Math.round(inflow.usd * 100);
      sales.set(day, s);
    }
    const payouts = new Map<string, { lamports: bigint; usdCents: number; players: number }>();
    for (const record of await payoutRecords(seeded.gameId, seeded.day)) {
      if (record.status !== 'confirmed') continue;
      const day = String(record.completedAt).slice(0, 10);
      const p = payouts.get(day) ?? { lamports: 0n, usdCents: 0, players: 0 };
      p.lamports += BigInt(record.send);
      p.usdCents += Math.round(Number(record.usd ?? 0) * 100);
      // Players paid: a creator's share alone is not a player's payout.
      if (record.roles.includes('player')) p.players += 1;
      payouts.set(day, p);
    }
    expect([...payouts.values()].some((p) => p.players > 0)).toBe(true);
    const from = shift(seeded.day, -2);
    const to = shift(seeded.day, 1);
    const res = await insights(seeded.gameId, { from, to }, seeded.dev);
    expect(res.status, res.text).toBe(200);
    for (const d of res.body.data.days) {
      const s = sales.get(d.day) ?? { count: 0, lamports: 0n, usdCents: 0 };
      const p = payouts.get(d.day) ?? { lamports: 0n, usdCents: 0, players: 0 };
      expect(d.sales, d.day).toEqual({ count: s.count, lamports: String(s.lamports), usdCents: s.usdCents });
      expect(d.payouts, d.day).toEqual({
        lamports: String(p.lamports),
        usdCents: p.usdCents,
        players: p.players,
      });
    }
    expect(res.body.data.days.find((d) => d.day === from)?.sales.count).toBe(2);
    // The seeded players' day: three new players, one cohort.
    expect(res.body.data.days.find((d) => d.day === seeded.day)).toMatchObject({
      activePlayers: 3,
      newPlayers: 3,
    });
  });
});

describe('GET /games/insights/{gameId}: tournament entrants and failed webhook deliveries', () => {
  let dev: Developer;
  let gameId: string;
  let worker: SqsPoller | undefined;
  let receiver: Receiver | undefined;
  beforeAll(async () => {
    dev = await createDeveloper();
    gameId = (await registerGame(dev)).id;
    worker = await startDeliveryWorker();
  });
  afterAll(async () => {
    await worker?.stop();
    await receiver?.close();
  });

  const today = () => new Date().toISOString().slice(0, 10);
  const todays = async () => {
    const res = await insights(gameId, { from: today(), to: today() }, dev);
    expect(res.status, res.text).toBe(200);
    return res.body.data.days[0];
  };

  it('counts each entrant of a period once, on the day they joined', async () => {
    const studioAuth = { scheme: 'hmac' as const, userId: dev.arcId, apiKey: dev.apiKey };
    const startsAt = new Date(Date.now() + 3_600_000);
    const created = await createTournament(studioAuth, gameId, {
      title: 'Insights cup',
      startsAt: startsAt.toISOString(),
      endsAt: new Date(startsAt.getTime() + 600_000).toISOString(),
      joinRequired: true,
    } as Parameters<typeof createTournament>[2]);
    const join = (arcId: string) =>
      joinTournament(
        { scheme: 'session', userId: arcId, sessionId: randomUUID(), gameId },
        gameId,
        created.tournamentId,
      );
    const [a, b] = await Promise.all([newMember(), newMember()]);
    expect((await join(a.arcId)).created).toBe(true);
    expect((await join(b.arcId)).created).toBe(true);
    expect((await join(a.arcId)).created).toBe(false); // joined already: not counted again
    expect((await todays())?.tournamentEntrants).toBe(2);
  });

  it('counts each failed delivery attempt, not the one that lands', async () => {
    const subscribed = await subscribeReceiver(dev, gameId, ['session.flagged']);
    receiver = subscribed.receiver;
    receiver.behaviour = (n) => (n < 3 ? 500 : 200);
    const path = `/webhooks/${gameId}/endpoints/${subscribed.endpointId}/test`;
    const sent = await invoke(sendTestHandler, {
      method: 'POST',
      path,
      pathParameters: { gameId, endpointId: subscribed.endpointId },
      headers: hmacHeaders(dev, 'POST', path),
    });
    expect(sent.status, sent.text).toBeLessThan(300);
    const r = receiver;
    await waitFor(() => r.received.length === 4, 30_000, 'four attempts');
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect((await todays())?.webhookFailures).toBe(3);
  }, 60_000);
});

describe('GET /games/insights/{gameId}: who may read them, and the range', () => {
  let dev: Developer;
  let other: Developer;
  let gameId: string;
  beforeAll(async () => {
    [dev, other] = await Promise.all([createDeveloper(), createDeveloper()]);
    gameId = (await registerGame(dev)).id;
  });

  it('answers its creator, 403 another studio, 401 without credentials, 404 an unknown game', async () => {
    expect((await insights(gameId, {}, dev)).status).toBe(200);
    const forbidden = await insights(gameId, {}, other);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error?.code).toBe('FORBIDDEN');
    expect((await insights(gameId, {}, null)).status).toBe(401);
    const unknown = await insights(randomUUID(), {}, dev);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error?.code).toBe('NOT_FOUND');
  });

  it('defaults to the 30 days ending today, zeros where nothing happened', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const res = await insights(gameId, {}, dev);
    expect(res.body.data).toMatchObject({ gameId, from: shift(today, -29), to: today, retention: [] });
    expect(res.body.data.days).toHaveLength(30);
    expect(res.body.data.days[29]).toEqual({
      day: today,
      activePlayers: 0,
      newPlayers: 0,
      sessions: { backend: 0, sdk: 0 },
      points: 0,
      flaggedSessions: 0,
      invalidatedSessions: 0,
      sales: { count: 0, lamports: '0', usdCents: 0 },
      payouts: { lamports: '0', usdCents: 0, players: 0 },
      tournamentEntrants: 0,
      webhookFailures: 0,
    });
  });

  it('reads up to 400 days; 400 for 401 days, a reversed range and a day that is no calendar day', async () => {
    const ok = await insights(gameId, { from: '2025-01-01', to: shift('2025-01-01', 399) }, dev);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data.days).toHaveLength(400);
    for (const query of [
      { from: '2025-01-01', to: shift('2025-01-01', 400) },
      { from: '2025-01-02', to: '2025-01-01' },
      { from: '2025-02-30', to: '2025-03-01' },
    ]) {
      const res = await insights(gameId, query, dev);
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body.error?.code).toBe('VALIDATION_ERROR');
    }
  });
});
