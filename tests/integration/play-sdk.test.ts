import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as commitHandler } from '../../functions/play/commit-session.js';
import { handler as flushHandler } from '../../functions/play/flush-points.js';
import { handler as sessionTokenHandler } from '../../functions/play/get-session-token.js';
import type { AuthContext } from '../../lib/core/auth.js';
import type { GameView } from '../../lib/games/contracts.js';
import { utcDay } from '../../lib/play/keys.js';
import { flushHash } from '../../lib/play/protocol.js';
import { heightKey, heightOf } from '../../lib/play/rank-index.js';
import { playerRank } from '../../lib/play/rank-reads.js';
import { getItem } from '../../lib/play/repository.js';
import { batchSavePoints } from '../../lib/play/save-points.js';
import { commit, flush, openSession, playerPoints, sessionState } from '../../lib/play/sdk.js';
import { issueSessionToken } from '../../lib/play/session-token.js';
import { localDirectory } from '../../lib/user/directory.js';
import { ArcadiaError } from '../../sdk/src/index.js';
import { registerGame } from '../helpers/games.js';
import { invoke } from '../helpers/http.js';
import { idpToken } from '../helpers/idp.js';
import { inProcessFetch, inProcessPlayClient } from '../helpers/play.js';
import { createDeveloper, type Developer } from '../helpers/users.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'OK';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
};

let dev: Developer;
let game: GameView;
beforeAll(async () => {
  dev = await createDeveloper();
  game = await registerGame(dev, { maxScorePerSession: 1000 });
});

/** A session opened through the domain (no HTTP rate limits), and the session auth its token carries. */
const open = async (g: GameView = game, at = new Date()) => {
  const player = { scheme: 'bearer' as const, userId: (await createDeveloper()).arcId };
  const session = await openSession(player, g.id, at);
  const auth: AuthContext = {
    scheme: 'session',
    userId: player.userId,
    sessionId: session.sessionId,
    gameId: g.id,
  };
  return { session, auth, player };
};

const linkFor = (
  sessionId: string,
  seq: number,
  delta: number,
  prevHash: string,
  clientTime = Date.now(),
) => {
  const link = { seq, delta, clientTime, prevHash };
  return { ...link, hash: flushHash(sessionId, link) };
};

describe('a session through the HTTP handlers', () => {
  it('opens with a platform token, flushes, commits and reports the points, paced within the limits', async () => {
    const client = inProcessPlayClient();
    const started = await client.start(game.id, await idpToken(`player-${randomUUID().slice(0, 8)}`));
    expect(started.chainSeed).toMatch(/^[0-9a-f]{64}$/);
    expect(Date.parse(started.expiresAt)).toBeGreaterThan(Date.now());
    const t0 = Date.now();
    expect((await client.flush(30)).accepted).toBe(30);
    // Sent at once: the client waits out the 1/s limit instead of drawing a 429.
    expect((await client.flush(12)).pendingPoints).toBe(42);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1000);
    expect(await client.commit()).toEqual({ status: 'committed', committedPoints: 42, clipped: false });
    expect(await client.points()).toMatchObject({ today: 42, allTime: 42 });
  });

  it('answers 429 to a second flush within a second and a second commit within five', async () => {
    const client = inProcessPlayClient({ pace: false, maxRetries: 0 });
    await client.start(game.id, await idpToken(`rl-${randomUUID().slice(0, 8)}`));
    await client.flush(1);
    const second = await client.flush(1).catch((error: unknown) => error);
    expect(second).toBeInstanceOf(ArcadiaError);
    expect(second).toMatchObject({ status: 429, code: 'RATE_LIMITED', retryAfter: expect.any(Number) });
    await sleep(1050);
    await client.resync();
    await client.commit();
    expect(await codeOf(client.commit())).toBe('RATE_LIMITED');
  });

  it('waits out a 429 for its Retry-After and sends again', async () => {
    const client = inProcessPlayClient({ pace: false });
    await client.start(game.id, await idpToken(`ra-${randomUUID().slice(0, 8)}`));
    await client.flush(3);
    expect(await client.flush(4)).toMatchObject({ seq: 2, pendingPoints: 7 });
  });

  it('commits again after 5 s when asked twice: the same answer, counted once', async () => {
    const client = inProcessPlayClient();
    await client.start(game.id, await idpToken(`cc-${randomUUID().slice(0, 8)}`));
    await client.flush(9);
    // The client paces commits from when the previous one was sent, not from its answer.
    const t0 = Date.now();
    const first = await client.commit();
    expect(await client.commit()).toEqual(first);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(4950);
    expect(await client.points()).toMatchObject({ today: 9, allTime: 9 });
  }, 20_000);

  it.each([
    ['no token', {}],
    ['a garbage token', { authorization: 'Bearer abc.def.ghi' }],
  ])('rejects a flush with %s (401)', async (_n, headers) => {
    const res = await invoke(flushHandler, {
      method: 'POST',
      path: '/play/flush',
      headers,
      body: linkFor(randomUUID(), 1, 1, '0'.repeat(64)),
    });
    expect(res.status).toBe(401);
  });

  it('rejects an expired session token and a platform token used as a session token (401)', async () => {
    const { auth } = await open();
    const expired = await issueSessionToken(
      { arcId: auth.userId, sessionId: auth.sessionId ?? '', gameId: game.id },
      new Date(Date.now() - 1000),
    );
    const res = await invoke(commitHandler, {
      method: 'POST',
      path: '/play/commit',
      headers: { authorization: `Bearer ${expired}` },
      body: { seq: 0, head: '0'.repeat(64), total: 0 },
    });
    expect(res.status).toBe(401);
    const platform = await idpToken(`p-${randomUUID().slice(0, 8)}`);
    const wrongKind = await invoke(commitHandler, {
      method: 'POST',
      path: '/play/commit',
      headers: { authorization: `Bearer ${platform}` },
      body: { seq: 0, head: '0'.repeat(64), total: 0 },
    });
    expect(wrongKind.status).toBe(401);
  });

  it('answers 404 for an unknown game and 400 for a malformed game id', async () => {
    const token = await idpToken(`g-${randomUUID().slice(0, 8)}`);
    const unknown = await invoke(sessionTokenHandler, {
      method: 'GET',
      path: '/play/session-token',
      headers: { authorization: `Bearer ${token}` },
      query: { gameId: randomUUID() },
    });
    expect(unknown.status).toBe(404);
    const bad = await invoke(sessionTokenHandler, {
      method: 'GET',
      path: '/play/session-token',
      headers: { authorization: `Bearer ${token}` },
      query: { gameId: 'x' },
    });
    expect(bad.status).toBe(400);
  });
});

describe('GET /play/session-token with an idempotency key', () => {
  const getToken = (token: string, query: Record<string, string>) =>
    invoke<{
      data: { sessionId: string; chainSeed: string; sessionToken: string };
      error: { code: string };
    }>(sessionTokenHandler, {
      method: 'GET',
      path: '/play/session-token',
      headers: { authorization: `Bearer ${token}` },
      query,
    });

  it('answers a retry with the session the first request opened, counted once against maxSessionsPerDay', async () => {
    const g = await registerGame(dev, { maxSessionsPerDay: 1 });
    const token = await idpToken(`k-${randomUUID().slice(0, 8)}`);
    const first = await getToken(token, { gameId: g.id, idempotencyKey: 'attempt-1' });
    expect(first.status).toBe(200);
    // Retries, one of them concurrent with others: same session, same chain seed, nothing counted again.
    const retries = await Promise.all(
      Array.from({ length: 8 }, () => getToken(token, { gameId: g.id, idempotencyKey: 'attempt-1' })),
    );
    for (const retry of retries) {
      expect(retry.status).toBe(200);
      expect(retry.body.data).toMatchObject({
        sessionId: first.body.data.sessionId,
        chainSeed: first.body.data.chainSeed,
      });
    }
    // The retried token works on the session.
    const flushed = await invoke(flushHandler, {
      method: 'POST',
      path: '/play/flush',
      headers: { authorization: `Bearer ${retries[0]?.body.data.sessionToken}` },
      body: linkFor(first.body.data.sessionId, 1, 3, first.body.data.chainSeed),
    });
    expect(flushed.status).toBe(200);
    // The day's one session is used: another key (or none) is refused.
    expect((await getToken(token, { gameId: g.id, idempotencyKey: 'attempt-2' })).status).toBe(403);
    expect((await getToken(token, { gameId: g.id })).status).toBe(403);
  });

  it('keeps keys per player and per game, and answers 409 once the keyed session is closed', async () => {
    const tokenA = await idpToken(`a-${randomUUID().slice(0, 8)}`);
    const tokenB = await idpToken(`b-${randomUUID().slice(0, 8)}`);
    const a = await getToken(tokenA, { gameId: game.id, idempotencyKey: 'same-key' });
    const b = await getToken(tokenB, { gameId: game.id, idempotencyKey: 'same-key' });
    expect(a.body.data.sessionId).not.toBe(b.body.data.sessionId);
    const commitRes = await invoke(commitHandler, {
      method: 'POST',
      path: '/play/commit',
      headers: { authorization: `Bearer ${a.body.data.sessionToken}` },
      body: { seq: 0, head: a.body.data.chainSeed, total: 0 },
    });
    expect(commitRes.status).toBe(200);
    const after = await getToken(tokenA, { gameId: game.id, idempotencyKey: 'same-key' });
    expect(after.status).toBe(409);
    expect(after.body.error.code).toBe('SESSION_CLOSED');
  });

  it('refuses a malformed key with 400', async () => {
    const token = await idpToken(`m-${randomUUID().slice(0, 8)}`);
    const res = await getToken(token, { gameId: game.id, idempotencyKey: 'has space' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe("the game's own auth (jwksUrl)", () => {
  let server: Server;
  let sign: (claims: Record<string, unknown>) => Promise<string>;
  let jwksGame: GameView;
  beforeAll(async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'game-key', alg: 'ES256' };
    server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [jwk] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://localhost:${(server.address() as AddressInfo).port}/jwks.json`;
    jwksGame = await registerGame(dev, { jwksUrl: url });
    sign = (claims) => {
      const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'game-key' }).setIssuedAt();
      if (!('exp' in claims)) jwt.setExpirationTime('10m');
      return jwt.sign(privateKey);
    };
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const start = async (token: string, gameId = jwksGame.id) =>
    invoke<{ data: { sessionId: string } }>(sessionTokenHandler, {
      method: 'GET',
      path: '/play/session-token',
      headers: { authorization: `Bearer ${token}` },
      query: { gameId },
    });

  it("opens a session for a player of the game's own auth", async () => {
    const res = await start(
      await sign({ sub: 'player-7', aud: jwksGame.id, iss: 'https://auth.game.example' }),
    );
    expect(res.status).toBe(200);
    expect(res.body.data.sessionId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('rejects a token for another game, an expired one, and one for a game without jwksUrl', async () => {
    expect((await start(await sign({ sub: 'p', aud: randomUUID(), iss: 'x' }))).status).toBe(401);
    const expired = await sign({
      sub: 'p',
      aud: jwksGame.id,
      iss: 'x',
      exp: Math.floor(Date.now() / 1000) - 60,
    });
    expect((await start(expired)).status).toBe(401);
    expect((await start(await sign({ sub: 'p', aud: game.id, iss: 'x' }), game.id)).status).toBe(401);
  });
});

describe('the hash chain', () => {
  it('rejects reordered, duplicated, dropped and forged flushes with clear codes', async () => {
    const { session, auth } = await open();
    const sid = session.sessionId;
    const first = linkFor(sid, 1, 10, session.chainSeed);
    const second = linkFor(sid, 2, 10, first.hash);
    expect(await codeOf(flush(auth, second))).toBe('FLUSH_OUT_OF_ORDER'); // reordered
    await flush(auth, first);
    expect(await codeOf(flush(auth, first))).toBe('FLUSH_OUT_OF_ORDER'); // duplicated
    expect(await codeOf(flush(auth, linkFor(sid, 3, 10, second.hash)))).toBe('FLUSH_OUT_OF_ORDER'); // dropped #2
    expect(await codeOf(flush(auth, { ...second, delta: 500 }))).toBe('CHAIN_BROKEN'); // forged delta
    expect(await codeOf(flush(auth, linkFor(sid, 2, 10, 'f'.repeat(64))))).toBe('CHAIN_BROKEN'); // wrong prevHash
    expect(await codeOf(flush(auth, linkFor(randomUUID(), 2, 10, first.hash)))).toBe('CHAIN_BROKEN'); // another session's chain
    await flush(auth, second);
    expect((await sessionState(auth)).pendingPoints).toBe(20);
  });

  it('rejects a commit with a stale head or a wrong total, then accepts the right one', async () => {
    const { session, auth } = await open();
    const a = linkFor(session.sessionId, 1, 5, session.chainSeed);
    const b = linkFor(session.sessionId, 2, 7, a.hash);
    await flush(auth, a);
    await flush(auth, b);
    expect(await codeOf(commit(auth, { seq: 1, head: a.hash, total: 5 }))).toBe('CHAIN_BROKEN');
    expect(await codeOf(commit(auth, { seq: 2, head: b.hash, total: 99 }))).toBe('CHAIN_BROKEN');
    expect(await commit(auth, { seq: 2, head: b.hash, total: 12 })).toMatchObject({ committedPoints: 12 });
    expect(await codeOf(flush(auth, linkFor(session.sessionId, 3, 1, b.hash)))).toBe('SESSION_CLOSED');
  });

  it('answers a retried commit (lost answer) with the first result, counting the points once', async () => {
    const g = await registerGame(dev, { maxCumulativePointsPerDay: 30 });
    const { session, auth } = await open(g);
    const a = linkFor(session.sessionId, 1, 40, session.chainSeed);
    await flush(auth, a);
    const body = { seq: 1, head: a.hash, total: 40 };
    const first = await commit(auth, body);
    expect(first).toEqual({ status: 'committed', committedPoints: 30, clipped: true });
    // The answer is lost: the client retries the same commit, several times and at once.
    const retries = await Promise.all(Array.from({ length: 5 }, () => commit(auth, body)));
    for (const retry of retries) expect(retry).toEqual(first);
    expect(await sessionState(auth)).toMatchObject({
      status: 'committed',
      committedPoints: 30,
      pendingPoints: 0,
    });
    const points = await playerPoints(auth);
    expect(points).toMatchObject({ today: 30, allTime: 30 });
    // Only the same commit replays: another head or total on a sealed session is SESSION_CLOSED.
    expect(await codeOf(commit(auth, { ...body, total: 41 }))).toBe('SESSION_CLOSED');
    expect(await codeOf(commit(auth, { seq: 0, head: session.chainSeed, total: 0 }))).toBe('SESSION_CLOSED');
  });

  it('commits once when the same commit races itself', async () => {
    const { session, auth } = await open();
    const a = linkFor(session.sessionId, 1, 12, session.chainSeed);
    await flush(auth, a);
    const body = { seq: 1, head: a.hash, total: 12 };
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => commit(auth, body)));
    for (const outcome of outcomes)
      expect(outcome).toEqual({ status: 'committed', committedPoints: 12, clipped: false });
    expect(await playerPoints(auth)).toMatchObject({ today: 12, allTime: 12 });
  });

  it('resyncs by itself when another flush moved the chain', async () => {
    const client = inProcessPlayClient();
    await client.start(game.id, await idpToken(`resync-${randomUUID().slice(0, 8)}`));
    const auth = { scheme: 'session' as const, userId: '', sessionId: client.sessionId, gameId: game.id };
    // The server applies a flush the client never heard of (e.g. sent before a crash).
    await flush(auth, await client.link(25));
    await sleep(1050);
    expect(await client.flush(5)).toMatchObject({ seq: 2, pendingPoints: 30 });
    expect(await client.resync()).toMatchObject({ seq: 2, claimedTotal: 30 });
    expect((await client.commit()).committedPoints).toBe(30);
  });

  it('resyncs after its own flush lost its answer, without sending it twice', async () => {
    let lose = false;
    const client = inProcessPlayClient({
      fetch: async (request) => {
        const response = await inProcessFetch(request);
        if (lose && new URL(request.url).pathname === '/play/flush') {
          lose = false;
          throw new TypeError('fetch failed: connection reset');
        }
        return response;
      },
    });
    await client.start(game.id, await idpToken(`lost-${randomUUID().slice(0, 8)}`));
    await client.flush(10);
    lose = true;
    expect(await client.flush(25)).toMatchObject({ seq: 2, accepted: 25, pendingPoints: 35 });
    expect(client.total).toBe(35);
    expect((await client.commit()).committedPoints).toBe(35);
  });

  it('never double-counts concurrent flushes of one session', async () => {
    const { session, auth } = await open();
    const link = linkFor(session.sessionId, 1, 40, session.chainSeed);
    const outcomes = await Promise.all(Array.from({ length: 10 }, () => codeOf(flush(auth, link))));
    expect(outcomes.filter((o) => o === 'OK')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'FLUSH_OUT_OF_ORDER')).toHaveLength(9);
    expect((await sessionState(auth)).pendingPoints).toBe(40);
  });
});

describe('caps and risk', () => {
  it('clips flushes at maxScorePerSession and commits at maxCumulativePointsPerDay', async () => {
    const g = await registerGame(dev, { maxScorePerSession: 50, maxCumulativePointsPerDay: 80 });
    const { session, auth, player } = await open(g);
    const a = linkFor(session.sessionId, 1, 45, session.chainSeed);
    const b = linkFor(session.sessionId, 2, 45, a.hash);
    expect((await flush(auth, a)).accepted).toBe(45);
    expect(await flush(auth, b)).toMatchObject({ accepted: 5, reason: 'max_score_per_session' });
    expect((await commit(auth, { seq: 2, head: b.hash, total: 90 })).committedPoints).toBe(50);
    // A second session of the same player: the day cap leaves 30.
    const second = await openSession(player, g.id);
    const auth2: AuthContext = {
      scheme: 'session',
      userId: player.userId,
      sessionId: second.sessionId,
      gameId: g.id,
    };
    const c = linkFor(second.sessionId, 1, 50, second.chainSeed);
    await flush(auth2, c);
    expect(await commit(auth2, { seq: 1, head: c.hash, total: 50 })).toEqual({
      status: 'committed',
      committedPoints: 30,
      clipped: true,
    });
  });

  it('refuses sessions beyond maxSessionsPerDay', async () => {
    const g = await registerGame(dev, { maxSessionsPerDay: 2 });
    const player = { scheme: 'bearer' as const, userId: (await createDeveloper()).arcId };
    await openSession(player, g.id);
    await openSession(player, g.id);
    expect(await codeOf(openSession(player, g.id))).toBe('SESSION_LIMIT_REACHED');
  });

  it('scores a metronome-regular session above 0.5 and a human-like one below', async () => {
    const play = async (intervalsMs: number[], delta: (i: number) => number) => {
      const t0 = Date.now();
      const { session, auth } = await open(game, new Date(t0));
      let head = session.chainSeed;
      let t = t0;
      for (const [i, gap] of intervalsMs.entries()) {
        t += gap;
        const link = linkFor(session.sessionId, i + 1, delta(i), head, t);
        await flush(auth, link, new Date(t));
        head = link.hash;
      }
      const { devSessions } = await import('../../lib/play/queries.js');
      const page = await devSessions({ scheme: 'hmac', userId: dev.arcId }, game.id, {
        limit: 100,
        player: auth.userId,
      });
      return page.data[0];
    };
    const bot = await play(
      Array.from({ length: 10 }, () => 1000),
      () => 5,
    );
    expect(bot?.riskScore).toBeGreaterThan(0.5);
    expect(bot?.riskReasons).toContain('regular_timing');
    const human = await play(
      [1300, 2700, 900, 4100, 1800, 3300, 1200, 2500, 3900, 1600],
      (i) => 3 + ((i * 7) % 11),
    );
    expect(human?.riskScore).toBeLessThan(0.5);
  });
});

describe('session-state errors', () => {
  it('answers a flush on an unknown session with 404', async () => {
    const auth: AuthContext = {
      scheme: 'session',
      userId: randomUUID(),
      sessionId: randomUUID(),
      gameId: game.id,
    };
    expect(await codeOf(flush(auth, linkFor(auth.sessionId ?? '', 1, 1, '0'.repeat(64))))).toBe('NOT_FOUND');
  });
});

describe('the boards', () => {
  it("raises the board's height when a commit takes a score to a new level, so ranks below count it", async () => {
    const g = await registerGame(dev, { maxScorePerSession: 1000 });
    const day = utcDay(new Date());
    const board = { kind: 'day' as const, gameId: g.id, day };
    const below = await batchSavePoints(
      { scheme: 'hmac', userId: dev.arcId },
      { gameId: g.id, entries: [{ playerId: `x:low${randomUUID().slice(0, 8)}`, points: 10 }] },
      { directory: localDirectory },
    );
    const low = below.results[0]?.arcId ?? '';
    expect(heightOf(await getItem(heightKey(board)))).toBe(0);
    // 500 = 7·64 + 52: level 1 of the score tree, above the height of 0 the batch save left.
    const { session, auth } = await open(g);
    const link = linkFor(session.sessionId, 1, 500, session.chainSeed);
    await flush(auth, link);
    expect(await commit(auth, { seq: 1, head: link.hash, total: 500 })).toMatchObject({
      committedPoints: 500,
    });
    expect(heightOf(await getItem(heightKey(board)))).toBe(1);
    expect(heightOf(await getItem(heightKey({ kind: 'all', gameId: g.id })))).toBe(1);
    expect(await playerRank(board, low)).toMatchObject({ rank: 2, points: 10 });
    expect(await playerRank(board, auth.userId)).toMatchObject({ rank: 1, points: 500 });
  });
});
