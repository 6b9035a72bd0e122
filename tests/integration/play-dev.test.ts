import { randomBytes, randomUUID } from 'node:crypto';
import { BatchGetCommand, type BatchGetCommandOutput, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import bs58 from 'bs58';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as batchSave } from '../../functions/play-developer/batch-save-points.js';
import { handler as getLeaderboard } from '../../functions/play-developer/get-dev-leaderboard.js';
import { handler as getPoints } from '../../functions/play-developer/get-dev-points.js';
import { handler as invalidate } from '../../functions/play-developer/invalidate-sessions.js';
import { handler as listSessions } from '../../functions/play-developer/list-dev-sessions.js';
import { handler as listRisky } from '../../functions/play-developer/list-risky-sessions.js';
import { dynamo } from '../../lib/adapters/dynamodb.js';
import type { GameView } from '../../lib/games/contracts.js';
import { cancellationReasons, playTable } from '../../lib/play/repository.js';
import { writeKey } from '../../lib/play/saves/groups.js';
import { batchSavePoints, type EntryResult, type SaveEntry } from '../../lib/play/saves/save.js';
import { localDirectory } from '../../lib/user/directory.js';
import { registerGame } from '../helpers/games.js';
import { invoke } from '../helpers/http.js';
import { createDeveloper, type Developer, hmacHeaders } from '../helpers/users.js';

const wallet = () => `sol:${bs58.encode(randomBytes(32))}`;
const handle = () => `x:p${randomBytes(5).toString('hex')}`;

interface ErrorBody {
  error?: { code: string; message: string; details: Array<{ path: string; message: string }> };
}

interface SaveResponse extends ErrorBody {
  data: { playerIdToArcId: Record<string, string>; results: EntryResult[] };
}

// A signature is single-use: parallel calls sign distinct timestamps (`skewMs`).
const save = (dev: Developer, gameId: string, entries: SaveEntry[], skewMs = 0) =>
  invoke<SaveResponse>(batchSave, {
    method: 'POST',
    path: '/play/dev/batch-save-points',
    headers: hmacHeaders(dev, 'POST', '/play/dev/batch-save-points', { timestamp: Date.now() - skewMs }),
    body: { gameId, entries },
  });

const points = async (dev: Developer, gameId: string, playerIds: string[]) => {
  const res = await invoke<{
    data: { points: Array<{ playerId: string; arcId: string | null; today: number; allTime: number }> };
  }>(getPoints, {
    method: 'GET',
    path: '/play/dev/points',
    headers: hmacHeaders(dev, 'GET', '/play/dev/points'),
    query: { gameId, playerIds: playerIds.join(',') },
  });
  return res;
};

const board = (dev: Developer, gameId: string, query: Record<string, string> = {}) =>
  invoke<
    ErrorBody & {
      data: {
        entries: Array<{ rank: number; arcId: string; points: number }>;
        player?: { rank: number | null; points: number; neighbours: Array<{ rank: number; arcId: string }> };
      };
    }
  >(getLeaderboard, {
    method: 'GET',
    path: `/play/dev/leaderboard/${gameId}`,
    pathParameters: { gameId },
    headers: hmacHeaders(dev, 'GET', `/play/dev/leaderboard/${gameId}`),
    query,
  });

// Saves are 3 per second per API key; tests that need many saves get their own developer.
let dev: Developer;
let game: GameView;
beforeAll(async () => {
  dev = await createDeveloper();
  game = await registerGame(dev);
});

describe('POST /play/dev/batch-save-points', () => {
  it('saves points for every identifier form and returns the playerIdToArcId mapping', async () => {
    const eth = `eth:0x${randomBytes(20).toString('hex')}`;
    const email = `email:${randomUUID().slice(0, 8)}@example.com`;
    const ids = [dev.arcId, dev.subject, wallet(), eth, handle(), email];
    const res = await save(
      dev,
      game.id,
      ids.map((playerId, i) => ({ playerId, points: 10 * (i + 1) })),
    );
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data.playerIdToArcId).sort()).toEqual([...ids].sort());
    expect(res.body.data.results.map((r) => [r.status, r.accepted])).toEqual(
      ids.map((_, i) => ['accepted', 10 * (i + 1)]),
    );
    const read = await points(dev, game.id, ids);
    // The Arc ID and the did are the same player: 10 + 20.
    expect(read.body.data.points.map((p) => p.today)).toEqual([30, 30, 30, 40, 50, 60]);
  });

  it.each([1, 25, 26, 100])('accepts a batch of %i entries', async (n) => {
    const d = await createDeveloper();
    const g = await registerGame(d);
    const res = await save(
      d,
      g.id,
      Array.from({ length: n }, () => ({ playerId: wallet(), points: 1 })),
    );
    expect(res.status).toBe(200);
    expect(res.body.data.results).toHaveLength(n);
    expect(res.body.data.results.every((r) => r.status === 'accepted')).toBe(true);
  });

  it('rejects 101 entries, an empty batch, negative or fractional points and malformed identifiers', async () => {
    const d = await createDeveloper();
    const g = await registerGame(d);
    const over = await save(
      d,
      g.id,
      Array.from({ length: 101 }, () => ({ playerId: wallet(), points: 1 })),
    );
    expect(over.status).toBe(400);
    expect(over.body.error?.code).toBe('VALIDATION_ERROR');
    await new Promise((r) => setTimeout(r, 1100));
    expect((await save(d, g.id, [])).status).toBe(400);
    expect((await save(d, g.id, [{ playerId: wallet(), points: -1 }])).status).toBe(400);
    await new Promise((r) => setTimeout(r, 1100));
    expect((await save(d, g.id, [{ playerId: wallet(), points: 1.5 }])).status).toBe(400);
    await new Promise((r) => setTimeout(r, 1100));
    // The bad identifier is named by its entry's path, whatever the entries before it (the same player twice).
    const known = wallet();
    const bad = await save(d, g.id, [
      { playerId: known, points: 1 },
      { playerId: known, points: 1 },
      { playerId: 'sol:not-base58-0OIl', points: 1 },
    ]);
    expect(bad.status).toBe(400);
    expect(bad.body.error?.code).toBe('INVALID_IDENTIFIER');
    expect(bad.body.error?.message).toContain('sol:not-base58-0OIl');
    expect(bad.body.error?.details).toEqual([
      { path: 'entries.2.playerId', message: expect.stringContaining('sol:not-base58-0OIl') },
    ]);
  });

  it('refuses a day that is not on the calendar, and names the query field', async () => {
    for (const day of ['2026-02-30', '2026-13-01', '2025-02-29']) {
      const res = await board(dev, game.id, { period: 'daily', day });
      expect(res.status, day).toBe(400);
      expect(res.body.error?.code).toBe('VALIDATION_ERROR');
      expect(res.body.error?.details).toEqual([{ path: 'day', message: 'is not a calendar day' }]);
    }
    expect((await board(dev, game.id, { period: 'daily', day: '2024-02-29' })).status).toBe(200);
  });

  it("answers 403 for another developer's game, 404 for an unknown game, 401 unsigned", async () => {
    const other = await createDeveloper();
    const forbidden = await save(other, game.id, [{ playerId: wallet(), points: 5 }]);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error?.code).toBe('FORBIDDEN');
    expect((await save(other, randomUUID(), [{ playerId: wallet(), points: 5 }])).status).toBe(404);
    const unsigned = await invoke<ErrorBody>(batchSave, {
      method: 'POST',
      path: '/play/dev/batch-save-points',
      body: { gameId: game.id, entries: [{ playerId: wallet(), points: 1 }] },
    });
    expect(unsigned.status).toBe(401);
    // The 401 says what the endpoint takes and what the request sent.
    expect(unsigned.body.error?.message).toMatch(
      /^Missing credentials: this endpoint accepts an HMAC signature \(Authorization: HMAC-SHA256 .*\); the request sent no Authorization header$/,
    );
    const withBearer = await invoke<ErrorBody>(batchSave, {
      method: 'POST',
      path: '/play/dev/batch-save-points',
      headers: { authorization: 'Bearer abc.def.ghi' },
      body: { gameId: game.id, entries: [{ playerId: wallet(), points: 1 }] },
    });
    expect(withBearer.status).toBe(401);
    expect(withBearer.body.error?.message).toMatch(
      /accepts an HMAC signature .*; the request sent a bearer token$/,
    );
  });

  it('applies an idempotency key once, within a batch and across retries', async () => {
    const d = await createDeveloper();
    const g = await registerGame(d);
    const player = wallet();
    const key = randomUUID();
    const first = await save(d, g.id, [
      { playerId: player, points: 7, idempotencyKey: key },
      { playerId: player, points: 7, idempotencyKey: key },
    ]);
    expect(first.body.data.results.map((r) => r.status)).toEqual(['accepted', 'duplicate']);
    const retry = await save(d, g.id, [{ playerId: player, points: 7, idempotencyKey: key }]);
    expect(retry.body.data.results[0]).toMatchObject({ status: 'duplicate', accepted: 7 });
    expect((await points(d, g.id, [player])).body.data.points[0]?.today).toBe(7);
  });

  it('answers 429 with Retry-After to the 4th request in a second', async () => {
    const d = await createDeveloper();
    const g = await registerGame(d);
    const responses = await Promise.all(
      Array.from({ length: 4 }, (_, i) => save(d, g.id, [{ playerId: wallet(), points: 1 }], i * 1000)),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 429]);
    const limited = responses.find((r) => r.status === 429);
    expect(limited?.body.error?.code).toBe('RATE_LIMITED');
    expect(Number(limited?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });
});

describe('caps', () => {
  const deps = { directory: localDirectory };

  it('clips at maxScorePerSession and maxCumulativePointsPerDay and reports why', async () => {
    const d = await createDeveloper();
    const g = await registerGame(d, { maxScorePerSession: 100, maxCumulativePointsPerDay: 150 });
    const player = wallet();
    const res = await batchSavePoints(
      { scheme: 'hmac', userId: d.arcId },
      {
        gameId: g.id,
        entries: [
          { playerId: player, points: 80, sessionId: 's1' },
          { playerId: player, points: 50, sessionId: 's1' },
          { playerId: player, points: 60, sessionId: 's2' },
          { playerId: player, points: 10, sessionId: 's3' },
        ],
      },
      deps,
    );
    expect(res.results.map((r) => [r.status, r.accepted, r.reason])).toEqual([
      ['accepted', 80, null],
      ['clipped', 20, 'max_score_per_session'],
      ['clipped', 50, 'max_cumulative_points_per_day'],
      ['rejected', 0, 'max_cumulative_points_per_day'],
    ]);
  });

  it('rejects sessions beyond maxSessionsPerDay', async () => {
    const d = await createDeveloper();
    const g = await registerGame(d, { maxSessionsPerDay: 2 });
    const player = wallet();
    const res = await batchSavePoints(
      { scheme: 'hmac', userId: d.arcId },
      {
        gameId: g.id,
        entries: ['a', 'b', 'c', 'a'].map((sessionId) => ({ playerId: player, points: 1, sessionId })),
      },
      deps,
    );
    expect(res.results.map((r) => r.status)).toEqual(['accepted', 'accepted', 'rejected', 'accepted']);
    expect(res.results[2]?.reason).toBe('max_sessions_per_day');
  });

  it('never exceeds a cap under 20 concurrent batches', async () => {
    const d = await createDeveloper();
    const g = await registerGame(d, {
      maxCumulativePointsPerDay: 1000,
      maxScorePerSession: 700,
      maxSessionsPerDay: 5,
    });
    const player = wallet();
    const runs = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        batchSavePoints(
          { scheme: 'hmac', userId: d.arcId },
          {
            gameId: g.id,
            entries: [
              { playerId: player, points: 37, sessionId: `s${i % 7}` },
              { playerId: player, points: 41, sessionId: `s${(i + 3) % 7}` },
            ],
          },
          deps,
        ),
      ),
    );
    const accepted = runs.flatMap((r) => r.results).reduce((sum, r) => sum + r.accepted, 0);
    const today = await invoke<{ data: { points: Array<{ today: number; allTime: number }> } }>(getPoints, {
      method: 'GET',
      path: '/play/dev/points',
      headers: hmacHeaders(d, 'GET', '/play/dev/points'),
      query: { gameId: g.id, playerIds: player },
    });
    const total = today.body.data.points[0];
    expect(total?.today).toBe(accepted);
    expect(total?.allTime).toBe(accepted);
    expect(accepted).toBeLessThanOrEqual(1000);
    // 20 × 78 = 1560 were offered, so the day cap was reached exactly.
    expect(accepted).toBe(1000);
    const sessions = await invoke<{ data: Array<{ sessionId: string; points: number }> }>(listSessions, {
      method: 'GET',
      path: `/play/dev/sessions/${g.id}`,
      pathParameters: { gameId: g.id },
      headers: hmacHeaders(d, 'GET', `/play/dev/sessions/${g.id}`),
      query: { limit: '100' },
    });
    expect(sessions.body.data.length).toBeLessThanOrEqual(5);
    expect(sessions.body.data.every((s) => s.points <= 700)).toBe(true);
    expect(sessions.body.data.reduce((sum, s) => sum + s.points, 0)).toBe(1000);
  });
});

describe('leaderboards, sessions and invalidation', () => {
  it('ranks players, breaks ties by who scored first, and removes invalidated points exactly once', async () => {
    const d = await createDeveloper();
    const g = await registerGame(d);
    const [a, b, c, e] = [wallet(), wallet(), wallet(), wallet()];
    const auth = { scheme: 'hmac' as const, userId: d.arcId };
    const deps = { directory: localDirectory };
    const first = await batchSavePoints(
      auth,
      {
        gameId: g.id,
        entries: [
          { playerId: a, points: 50, sessionId: 'a1' },
          { playerId: b, points: 30, sessionId: 'b1' },
          { playerId: c, points: 30, sessionId: 'c1' },
        ],
      },
      deps,
    );
    await new Promise((r) => setTimeout(r, 20));
    await batchSavePoints(
      auth,
      {
        gameId: g.id,
        entries: [
          { playerId: e, points: 30, sessionId: 'e1' },
          { playerId: a, points: 25, sessionId: 'a2' },
        ],
      },
      deps,
    );
    const ids = first.playerIdToArcId;
    const idE = (await points(d, g.id, [e])).body.data.points[0]?.arcId;
    const daily = await board(d, g.id);
    expect(daily.status).toBe(200);
    const order = daily.body.data.entries;
    expect(order[0]).toMatchObject({ rank: 1, arcId: ids[a], points: 75 });
    // b and c reached 30 together before e; between them the Arc ID decides.
    expect(
      order
        .slice(1, 3)
        .map((x) => x.arcId)
        .sort(),
    ).toEqual([ids[b], ids[c]].sort());
    expect(order[3]).toMatchObject({ rank: 4, arcId: idE, points: 30 });

    const mine = await board(d, g.id, { player: e, period: 'alltime' });
    expect(mine.body.data.player).toMatchObject({ rank: 4, points: 30 });
    expect(mine.body.data.player?.neighbours.map((n) => n.rank)).toEqual([2, 3]);

    const paged = await board(d, g.id, { limit: '2', offset: '1' });
    expect(paged.body.data.entries.map((x) => x.rank)).toEqual([2, 3]);

    const call = (skewMs: number) =>
      invoke<{
        data: {
          invalidated: Array<{ sessionId: string; pointsRemoved: number }>;
          alreadyInvalidated: string[];
          notFound: string[];
        };
      }>(invalidate, {
        method: 'POST',
        path: '/play/dev/invalidate-sessions',
        headers: hmacHeaders(d, 'POST', '/play/dev/invalidate-sessions', { timestamp: Date.now() - skewMs }),
        body: { gameId: g.id, sessionIds: ['a1', 'nope'] },
      });
    const [x, y] = await Promise.all([call(0), call(1000)]);
    const removed = [...x.body.data.invalidated, ...y.body.data.invalidated];
    expect(removed).toEqual([{ sessionId: 'a1', arcId: ids[a], pointsRemoved: 50 }]);
    expect([...x.body.data.alreadyInvalidated, ...y.body.data.alreadyInvalidated]).toEqual(['a1']);
    expect(x.body.data.notFound).toEqual(['nope']);

    const after = await board(d, g.id, { period: 'alltime' });
    expect(after.body.data.entries.find((x) => x.arcId === ids[a])?.points).toBe(25);
    expect(after.body.data.entries[0]?.points).toBe(30);
    // An invalidated session takes no more points.
    const late = await batchSavePoints(
      auth,
      { gameId: g.id, entries: [{ playerId: a, points: 5, sessionId: 'a1' }] },
      deps,
    );
    expect(late.results[0]).toMatchObject({ status: 'rejected', reason: 'session_closed' });
  });

  it('lists sessions with filters and cursor pages, and flags risky ones', async () => {
    const d = await createDeveloper();
    const g = await registerGame(d, { maxScorePerSession: 10 });
    const player = wallet();
    const auth = { scheme: 'hmac' as const, userId: d.arcId };
    await batchSavePoints(
      auth,
      {
        gameId: g.id,
        entries: [
          { playerId: player, points: 5, sessionId: 'calm' },
          { playerId: player, points: 50, sessionId: 'greedy' },
          { playerId: player, points: 50, sessionId: 'greedy' },
          { playerId: wallet(), points: 1, sessionId: 'other' },
        ],
      },
      { directory: localDirectory },
    );
    const list = (query: Record<string, string>) =>
      invoke<{
        data: Array<{ sessionId: string; riskScore: number; riskReasons: string[]; status: string }>;
        meta: { nextCursor: string | null };
      }>(listSessions, {
        method: 'GET',
        path: `/play/dev/sessions/${g.id}`,
        pathParameters: { gameId: g.id },
        headers: hmacHeaders(d, 'GET', `/play/dev/sessions/${g.id}`),
        query,
      });
    expect((await list({})).body.data.map((s) => s.sessionId).sort()).toEqual(['calm', 'greedy', 'other']);
    expect((await list({ player })).body.data.map((s) => s.sessionId).sort()).toEqual(['calm', 'greedy']);
    expect((await list({ status: 'invalidated' })).body.data).toEqual([]);
    const page1 = await list({ limit: '2' });
    expect(page1.body.data).toHaveLength(2);
    const page2 = await list({ limit: '2', cursor: page1.body.meta.nextCursor ?? '' });
    expect([...page1.body.data, ...page2.body.data].map((s) => s.sessionId).sort()).toEqual([
      'calm',
      'greedy',
      'other',
    ]);
    expect((await list({ cursor: 'garbage' })).status).toBe(400);

    const risky = await invoke<{
      data: Array<{ sessionId: string; riskScore: number; riskReasons: string[] }>;
    }>(listRisky, {
      method: 'GET',
      path: `/play/dev/risky-sessions/${g.id}`,
      pathParameters: { gameId: g.id },
      headers: hmacHeaders(d, 'GET', `/play/dev/risky-sessions/${g.id}`),
    });
    expect(risky.body.data.map((s) => s.sessionId)).toEqual(['greedy']);
    expect(risky.body.data[0]?.riskScore).toBeGreaterThan(0.5);
    expect(risky.body.data[0]?.riskReasons).toContain('cap_hit');
  });

  it("keeps another developer out of a game's boards and sessions", async () => {
    const other = await createDeveloper();
    const res = await board(other, game.id);
    expect(res.status).toBe(403);
    const sessions = await invoke(listSessions, {
      method: 'GET',
      path: `/play/dev/sessions/${game.id}`,
      pathParameters: { gameId: game.id },
      headers: hmacHeaders(other, 'GET', `/play/dev/sessions/${game.id}`),
    });
    expect(sessions.status).toBe(403);
    const today = await points(other, game.id, [wallet()]);
    expect(today.status).toBe(403);
  });
});

interface SentTransaction {
  keys: string[];
  /** CancellationReasons when DynamoDB cancelled it. */
  reasons?: string[];
}

/**
 * Records every play-table transaction the shared client sends (passed through to the local stack).
 * `before(n)` runs ahead of the n-th (1-based) and may hold it back or write in between; `restore()` ends it.
 */
const recordTransactions = (before?: (n: number) => Promise<void>) => {
  const client = dynamo();
  const passThrough = client.send.bind(client) as (command: unknown) => Promise<never>;
  const mock = mockClient(client);
  const sent: SentTransaction[] = [];
  mock.send.callsFake(async (command: unknown) => {
    const keys =
      command instanceof TransactWriteCommand ? (command.input.TransactItems ?? []).map(writeKey) : [];
    if (!keys[0]?.startsWith(`${playTable()}|`)) return passThrough(command);
    const call: SentTransaction = { keys };
    sent.push(call);
    await before?.(sent.length);
    try {
      return await passThrough(command);
    } catch (error) {
      call.reasons = cancellationReasons(error);
      throw error;
    }
  });
  return { sent, restore: () => mock.restore() };
};

/** The players (Arc IDs) whose totals a transaction writes. */
const playersOf = (call: SentTransaction) =>
  new Set(call.keys.flatMap((k) => /\|TOTAL#[^#]+#([^|]+)\|/.exec(k)?.[1] ?? []));

describe('grouped transactions', () => {
  const deps = { directory: localDirectory };

  it('writes a group again without the player whose cap failed, then re-plans that player', async () => {
    const d = await createDeveloper();
    const g = await registerGame(d, { maxCumulativePointsPerDay: 100 });
    const auth = { scheme: 'hmac' as const, userId: d.arcId };
    const players = Array.from({ length: 5 }, wallet);
    const late = players[2] ?? '';
    let rival: Awaited<ReturnType<typeof batchSavePoints>> | undefined;
    // Between the batch's read and its first transaction, a parallel request saves 70 points for one player:
    // that player's plan (60 more) now breaks the day cap of 100, the other players' plans still hold.
    const recorder = recordTransactions(async (n) => {
      if (n !== 1) return;
      rival = await batchSavePoints(
        auth,
        { gameId: g.id, entries: [{ playerId: late, points: 70, sessionId: 'rival' }] },
        deps,
      );
    });
    let res: Awaited<ReturnType<typeof batchSavePoints>>;
    try {
      res = await batchSavePoints(
        auth,
        {
          gameId: g.id,
          entries: players.map((playerId) => ({ playerId, points: playerId === late ? 60 : 30 })),
        },
        deps,
      );
    } finally {
      recorder.restore();
    }
    expect(rival?.results[0]).toMatchObject({ accepted: 70, status: 'accepted' });
    expect(res.results.map((r) => [r.playerId, r.status, r.accepted, r.reason])).toEqual(
      players.map((p) =>
        p === late ? [p, 'clipped', 30, 'max_cumulative_points_per_day'] : [p, 'accepted', 30, null],
      ),
    );

    const lateId = res.playerIdToArcId[late] ?? '';
    const [grouped, rivalTx, rest, retry, ...more] = recorder.sent;
    expect(more).toEqual([]);
    // One transaction for the five players, cancelled by the late player's totals only: its day total (the cap,
    // and the points its board move starts from) and its all-time total (the points its move starts from), both
    // moved by the rival.
    expect(playersOf(grouped ?? { keys: [] }).size).toBe(5);
    const failed = grouped?.keys.filter((_, i) => grouped.reasons?.[i] !== 'None');
    expect(failed?.map((k) => k.replace(/^.*\|/, '')).sort()).toEqual([
      'ALL',
      expect.stringMatching(/^DAY#/),
    ]);
    for (const key of failed ?? []) {
      expect(key).toContain(`TOTAL#${g.id}#${lateId}|`);
      expect(grouped?.reasons?.[grouped.keys.indexOf(key)]).toBe('ConditionalCheckFailed');
    }
    expect([...playersOf(rivalTx ?? { keys: [] })]).toEqual([lateId]);
    // The other four written again without it, unchanged (their score-tree counter items, which name no player,
    // without the late player's ADDs); then the late player read again and re-planned.
    const named = (keys: string[] | undefined) => keys?.filter((k) => !k.includes('|RANK#'));
    expect(rest?.reasons).toBeUndefined();
    expect(named(rest?.keys)).toEqual(named(grouped?.keys)?.filter((k) => !k.includes(lateId)));
    expect([...playersOf(rest ?? { keys: [] })].sort()).toEqual(
      players
        .filter((p) => p !== late)
        .map((p) => res.playerIdToArcId[p])
        .sort(),
    );
    expect([...playersOf(retry ?? { keys: [] })]).toEqual([lateId]);
    expect(retry?.reasons).toBeUndefined();

    // Each player saved exactly once; the late player's day total stops at the cap.
    const totals = (await points(d, g.id, players)).body.data.points;
    expect(totals.map((t) => [t.today, t.allTime])).toEqual(
      players.map((p) => (p === late ? [100, 100] : [30, 30])),
    );
  });

  it('reads again instead of refusing a session when a torn read saw its day count but not the session', async () => {
    const d = await createDeveloper();
    const g = await registerGame(d, { maxSessionsPerDay: 2 });
    const auth = { scheme: 'hmac' as const, userId: d.arcId };
    const player = wallet();
    const open = (sessionId: string) =>
      batchSavePoints(auth, { gameId: g.id, entries: [{ playerId: player, points: 10, sessionId }] }, deps);
    await open('s1');
    await open('s2');
    // Fault path: the next batched read misses session s2 while its day total already counts it (a BatchGetItem
    // is not isolated from a concurrent save's transaction).
    const client = dynamo();
    const passThrough = client.send.bind(client) as (command: unknown) => Promise<BatchGetCommandOutput>;
    const mock = mockClient(client);
    let torn = 0;
    mock.send.callsFake(async (command: unknown) => {
      const out = await passThrough(command);
      if (!(command instanceof BatchGetCommand) || torn > 0) return out;
      for (const [table, items] of Object.entries(out.Responses ?? {})) {
        const kept = items.filter((item) => !(item.sk === 'SESSION' && String(item.pk).endsWith('#s2')));
        if (kept.length < items.length) torn += 1;
        if (out.Responses) out.Responses[table] = kept;
      }
      return out;
    });
    let res: Awaited<ReturnType<typeof batchSavePoints>>;
    try {
      res = await open('s2');
    } finally {
      mock.restore();
    }
    expect(torn).toBe(1);
    // Refused on the torn read, the plan's check that s2 is still absent failed: read again, s2 takes the points.
    expect(res.results.map((r) => [r.status, r.accepted, r.reason])).toEqual([['accepted', 10, null]]);
    expect((await points(d, g.id, [player])).body.data.points[0]?.today).toBe(30);
  });

  it('gives up with CONFLICT after 6 attempts that lose a race while the player stays as read', async () => {
    const d = await createDeveloper();
    const g = await registerGame(d);
    const auth = { scheme: 'hmac' as const, userId: d.arcId };
    // Every transaction is cancelled by a conflict that commits nothing (fault path: no save of the player moves).
    const recorder = recordTransactions(async () => {
      throw Object.assign(new Error('Transaction cancelled'), {
        name: 'TransactionCanceledException',
        CancellationReasons: [{ Code: 'TransactionConflict' }],
      });
    });
    try {
      await expect(
        batchSavePoints(auth, { gameId: g.id, entries: [{ playerId: wallet(), points: 5 }] }, deps),
      ).rejects.toMatchObject({ code: 'CONFLICT' });
    } finally {
      recorder.restore();
    }
    expect(recorder.sent).toHaveLength(6);
  });

  it('holds caps, sessions and idempotency under 20 concurrent batches of grouped players', async () => {
    const d = await createDeveloper();
    const g = await registerGame(d, {
      maxCumulativePointsPerDay: 400,
      maxScorePerSession: 150,
      maxSessionsPerDay: 3,
    });
    const auth = { scheme: 'hmac' as const, userId: d.arcId };
    const players = Array.from({ length: 6 }, wallet);
    const PARALLEL = 20;
    // The first 20 transactions wait for each other: they carry plans made from the same state, and race.
    let release = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const recorder = recordTransactions(async (n) => {
      if (n > PARALLEL) return;
      if (n === PARALLEL) release();
      await gate;
    });
    let runs: Array<Awaited<ReturnType<typeof batchSavePoints>>>;
    try {
      runs = await Promise.all(
        Array.from({ length: PARALLEL }, (_, i) =>
          batchSavePoints(
            auth,
            {
              gameId: g.id,
              // Session names and idempotency keys are per game: players of one batch share some of them.
              entries: players.flatMap((playerId, p) => [
                { playerId, points: 37, sessionId: `s${(i + p) % 5}` },
                { playerId, points: 41, sessionId: `s${(i + 2 * p) % 5}`, idempotencyKey: `k${(i + p) % 4}` },
              ]),
            },
            deps,
          ),
        ),
      );
    } finally {
      recorder.restore();
    }
    const results = runs.flatMap((r) => r.results);
    const arcIds = runs[0]?.playerIdToArcId ?? {};

    // Grouping was exercised: transactions carried several players, some were cancelled for a part of their
    // players only, and none named an item twice (DynamoDB rejects that; DynamoDB Local does not).
    expect(recorder.sent.some((t) => playersOf(t).size > 1)).toBe(true);
    const partial = recorder.sent.filter(
      (t) => t.reasons?.includes('None') && t.reasons.some((code) => code !== 'None'),
    );
    expect(partial.length).toBeGreaterThan(0);
    for (const t of recorder.sent) expect(new Set(t.keys).size).toBe(t.keys.length);
    for (const t of recorder.sent) expect(t.keys.length).toBeLessThanOrEqual(100);

    // An idempotency key counted once: one first result, every other use a duplicate of it.
    const withKey = runs.flatMap((run, i) =>
      run.results
        .filter((r) => r.index % 2 === 1)
        .map((r) => ({ ...r, key: `k${(i + (r.index - 1) / 2) % 4}` })),
    );
    for (let k = 0; k < 4; k++) {
      const uses = withKey.filter((r) => r.key === `k${k}`);
      const firsts = uses.filter((r) => r.status !== 'duplicate');
      expect(firsts).toHaveLength(1);
      for (const r of uses) expect(r.accepted).toBe(firsts[0]?.accepted);
    }

    // Per player: the stored totals are exactly what the answers accepted, within the caps.
    const totals = (await points(d, g.id, players)).body.data.points;
    const sessions = await invoke<{ data: Array<{ sessionId: string; arcId: string; points: number }> }>(
      listSessions,
      {
        method: 'GET',
        path: `/play/dev/sessions/${g.id}`,
        pathParameters: { gameId: g.id },
        headers: hmacHeaders(d, 'GET', `/play/dev/sessions/${g.id}`),
        query: { limit: '100' },
      },
    );
    for (const [p, playerId] of players.entries()) {
      const arcId = arcIds[playerId];
      const accepted = results
        .filter((r) => r.playerId === playerId && r.status !== 'duplicate')
        .reduce((sum, r) => sum + r.accepted, 0);
      expect(totals[p]).toMatchObject({ today: accepted, allTime: accepted });
      expect(accepted).toBeLessThanOrEqual(400);
      const own = sessions.body.data.filter((s) => s.arcId === arcId);
      expect(own.length).toBeLessThanOrEqual(3);
      expect(own.every((s) => s.points <= 150)).toBe(true);
      expect(own.reduce((sum, s) => sum + s.points, 0)).toBe(accepted);
    }
    // Session names are shared between players: a name belongs to the player who opened it first.
    expect(results.some((r) => r.reason === 'session_closed')).toBe(true);
  });
});
