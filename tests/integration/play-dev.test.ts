import { randomBytes, randomUUID } from 'node:crypto';
import bs58 from 'bs58';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as batchSave } from '../../functions/play-developer/batch-save-points.js';
import { handler as getLeaderboard } from '../../functions/play-developer/get-dev-leaderboard.js';
import { handler as getPoints } from '../../functions/play-developer/get-dev-points.js';
import { handler as invalidate } from '../../functions/play-developer/invalidate-sessions.js';
import { handler as listSessions } from '../../functions/play-developer/list-dev-sessions.js';
import { handler as listRisky } from '../../functions/play-developer/list-risky-sessions.js';
import type { GameView } from '../../lib/games/contracts.js';
import { localDirectory } from '../../lib/identity/directory.js';
import { batchSavePoints, type EntryResult, type SaveEntry } from '../../lib/play/save-points.js';
import { registerGame } from '../helpers/games.js';
import { invoke } from '../helpers/http.js';
import { createDeveloper, type Developer, hmacHeaders } from '../helpers/users.js';

const wallet = () => `sol:${bs58.encode(randomBytes(32))}`;
const handle = () => `x:p${randomBytes(5).toString('hex')}`;

interface SaveResponse {
  data: { playerIdToArcId: Record<string, string>; results: EntryResult[] };
  error?: { code: string; message: string };
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
  invoke<{
    data: {
      entries: Array<{ rank: number; arcId: string; points: number }>;
      player?: { rank: number | null; points: number; neighbours: Array<{ rank: number; arcId: string }> };
    };
  }>(getLeaderboard, {
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
    const bad = await save(d, g.id, [{ playerId: 'sol:not-base58-0OIl', points: 1 }]);
    expect(bad.status).toBe(400);
    expect(bad.body.error?.code).toBe('INVALID_IDENTIFIER');
    expect(bad.body.error?.message).toContain('sol:not-base58-0OIl');
  });

  it("answers 403 for another developer's game, 404 for an unknown game, 401 unsigned", async () => {
    const other = await createDeveloper();
    const forbidden = await save(other, game.id, [{ playerId: wallet(), points: 5 }]);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error?.code).toBe('FORBIDDEN');
    expect((await save(other, randomUUID(), [{ playerId: wallet(), points: 5 }])).status).toBe(404);
    const unsigned = await invoke(batchSave, {
      method: 'POST',
      path: '/play/dev/batch-save-points',
      body: { gameId: game.id, entries: [{ playerId: wallet(), points: 1 }] },
    });
    expect(unsigned.status).toBe(401);
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
    expect(order[0]).toEqual({ rank: 1, arcId: ids[a], points: 75 });
    // b and c reached 30 together before e; between them the Arc ID decides.
    expect(
      order
        .slice(1, 3)
        .map((x) => x.arcId)
        .sort(),
    ).toEqual([ids[b], ids[c]].sort());
    expect(order[3]).toEqual({ rank: 4, arcId: idE, points: 30 });

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
