// The SDK's server client against serverless offline (the test stack): a developer's whole flow over HTTP,
// HMAC-signed on WebCrypto, plus its retries, idempotency keys and typed errors.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type ArcadiaClient,
  ArcadiaError,
  createArcadiaClient,
  type Fetch,
  unwrap,
} from '../../sdk/src/index.js';
import { gameBody } from '../helpers/games.js';
import { createDeveloper, type Developer } from '../helpers/users.js';

const baseUrl = () => {
  const url = process.env.API_BASE_URL;
  if (!url) throw new Error('API_BASE_URL is not set: the test stack did not start serverless offline');
  return url;
};

let dev: Developer;
let arcadia: ArcadiaClient;
beforeAll(async () => {
  dev = await createDeveloper();
  arcadia = createArcadiaClient({
    baseUrl: baseUrl(),
    hmac: { apiKey: dev.apiKey, secretKey: dev.secretKey },
  });
});

describe('the server client', () => {
  it('registers a game, saves points in a batch, reads the leaderboard and invalidates a session', async () => {
    const { game } = unwrap(await arcadia.POST('/games', { body: gameBody() as never }));
    expect(game.id).toMatch(/^[0-9a-f-]{36}$/);
    const mine = unwrap(await arcadia.GET('/games/me'));
    expect(mine.map((g) => g.id)).toContain(game.id);

    const [alice, bob] = [
      `did:local:a-${randomUUID().slice(0, 8)}`,
      `did:local:b-${randomUUID().slice(0, 8)}`,
    ];
    const saved = unwrap(
      await arcadia.POST('/play/dev/batch-save-points', {
        body: {
          gameId: game.id,
          entries: [
            { playerId: alice, points: 70 },
            { playerId: bob, points: 40, sessionId: 'cheat-1' },
          ],
        },
      }),
    );
    expect(saved.results.map((r) => r.status)).toEqual(['accepted', 'accepted']);

    const board = unwrap(
      await arcadia.GET('/play/dev/leaderboard/{gameId}', { params: { path: { gameId: game.id } } }),
    );
    expect(board.entries.map((e) => [e.rank, e.points])).toEqual([
      [1, 70],
      [2, 40],
    ]);

    const bobSession = saved.results[1]?.sessionId ?? '';
    const invalidated = unwrap(
      await arcadia.POST('/play/dev/invalidate-sessions', {
        body: { gameId: game.id, sessionIds: [bobSession] },
      }),
    );
    expect(invalidated.invalidated).toEqual([
      expect.objectContaining({ sessionId: bobSession, pointsRemoved: 40 }),
    ]);
    const after = unwrap(
      await arcadia.GET('/play/dev/leaderboard/{gameId}', { params: { path: { gameId: game.id } } }),
    );
    expect(after.entries.map((e) => e.points)).toEqual([70]);
  });

  it('throws ArcadiaError with the code, details and request id of an error answer', async () => {
    const error = await arcadia
      .POST('/games', { body: { ...gameBody(), name: '' } as never })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ArcadiaError);
    expect(error).toMatchObject({ status: 400, code: 'VALIDATION_ERROR', requestId: expect.any(String) });
    const wrongSecret = createArcadiaClient({
      baseUrl: baseUrl(),
      hmac: { apiKey: dev.apiKey, secretKey: 'nope' },
    });
    await expect(wrongSecret.GET('/games/me')).rejects.toMatchObject({
      status: 401,
      code: 'INVALID_SIGNATURE',
    });
  });

  it('signs a path its URL percent-encodes: the board of a period named by its start instant', async () => {
    const urls: string[] = [];
    const client = createArcadiaClient({
      baseUrl: baseUrl(),
      hmac: { apiKey: dev.apiKey, secretKey: dev.secretKey },
      fetch: (request) => {
        urls.push(request.url);
        return fetch(request);
      },
    });
    const { game } = unwrap(await client.POST('/games', { body: gameBody() as never }));
    const iso = (ms: number) => `${new Date(ms).toISOString().slice(0, 19)}Z`;
    const now = Math.floor(Date.now() / 1000) * 1000;
    const created = unwrap(
      await client.POST('/tournaments/{gameId}', {
        params: { path: { gameId: game.id } },
        body: { title: 'Encoded path', startsAt: iso(now), endsAt: iso(now + 3_600_000) },
      }),
    );
    const periodId = created.current?.id ?? '';
    expect(periodId).toBe(iso(now));
    unwrap(
      await client.POST('/play/dev/batch-save-points', {
        body: { gameId: game.id, entries: [{ playerId: 'x:encoded', points: 12, sessionId: 'e' }] },
      }),
    );
    const board = (period: string) =>
      client.GET('/tournaments/{gameId}/{tournamentId}/periods/{periodId}/board', {
        params: { path: { gameId: game.id, tournamentId: created.tournamentId, periodId: period } },
      });
    // The URL carries the colons as %3A; the signature covers the path decoded, as the API receives it.
    expect(unwrap(await board(periodId)).entries).toEqual([
      expect.objectContaining({ rank: 1, points: 12, playerId: 'x:encoded' }),
    ]);
    expect(urls.at(-1)).toContain(`/periods/${periodId.replaceAll(':', '%3A')}/board`);
    // Characters the local stack leaves encoded in the path it hands the API (a space, é) are decoded there too:
    // the signature holds and the period id is refused as what it is, not as a bad signature.
    await expect(board('début 1')).rejects.toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect(urls.at(-1)).toContain('/periods/d%C3%A9but%201/board');
  });

  it('retries a registration whose answer was lost with the same idempotency key: one game', async () => {
    const owner = await createDeveloper();
    let lost = 0;
    const losingFetch: Fetch = async (request) => {
      const response = await fetch(request);
      if (request.method === 'POST' && lost++ === 0) throw new TypeError('fetch failed: socket hang up');
      return response;
    };
    const client = createArcadiaClient({
      baseUrl: baseUrl(),
      hmac: { apiKey: owner.apiKey, secretKey: owner.secretKey },
      fetch: losingFetch,
    });
    const { game } = unwrap(await client.POST('/games', { body: gameBody() as never }));
    expect(lost).toBe(2);
    const mine = unwrap(await client.GET('/games/me'));
    expect(mine.map((g) => g.id)).toEqual([game.id]);
  });

  it('waits out a 429 for its Retry-After, and throws it when retries are off', async () => {
    // batch-save-points allows 3 requests per second per API key.
    const owner = await createDeveloper();
    const hmac = { apiKey: owner.apiKey, secretKey: owner.secretKey };
    const client = createArcadiaClient({ baseUrl: baseUrl(), hmac });
    const { game } = unwrap(await client.POST('/games', { body: gameBody() as never }));
    const save = (c: ArcadiaClient) =>
      c.POST('/play/dev/batch-save-points', {
        body: {
          gameId: game.id,
          entries: [{ playerId: `did:local:r-${randomUUID().slice(0, 8)}`, points: 1 }],
        },
      });
    const noRetry = createArcadiaClient({ baseUrl: baseUrl(), hmac, maxRetries: 0 });
    // 15 at once: even when a loaded machine spreads them over four one-second windows, some are refused.
    const outcomes = await Promise.all(
      Array.from({ length: 15 }, () => save(noRetry).catch((e: unknown) => e)),
    );
    const limited = outcomes.filter((o) => o instanceof ArcadiaError);
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0]).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfter: expect.any(Number) });
    const all = await Promise.all(Array.from({ length: 5 }, () => save(client)));
    expect(all.every((r) => r.response.status === 200)).toBe(true);
  });
});
