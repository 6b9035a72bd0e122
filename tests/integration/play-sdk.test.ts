import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as updateGameHandler } from '../../functions/games/update-game.js';
import { handler as commitHandler } from '../../functions/play/commit-session.js';
import { handler as flushHandler } from '../../functions/play/flush-points.js';
import { handler as sessionTokenHandler } from '../../functions/play/get-session-token.js';
import { handler as listRiskyHandler } from '../../functions/play-developer/list-risky-sessions.js';
import { handler as purchaseHandler } from '../../functions/rewards/purchase-multiplier.js';
import { dynamo } from '../../lib/adapters/dynamodb.js';
import type { AuthContext } from '../../lib/core/auth.js';
import { PLAY_CAPS } from '../../lib/games/caps.js';
import type { GameView } from '../../lib/games/contracts.js';
import { utcDay } from '../../lib/play/keys.js';
import { flushHash } from '../../lib/play/protocol/chain.js';
import { commit, flush, openSession, playerPoints, sessionState } from '../../lib/play/protocol/state.js';
import { issueSessionToken } from '../../lib/play/protocol/token.js';
import { playerRank } from '../../lib/play/ranks/around.js';
import { metaKey, metaOf } from '../../lib/play/ranks/board.js';
import { getItem } from '../../lib/play/repository.js';
import { batchSavePoints } from '../../lib/play/saves/save.js';
import { localDirectory } from '../../lib/user/directory.js';
import { ArcadiaError, type PlayClient } from '../../sdk/src/index.js';
import { gameBody, postGame, registerGame } from '../helpers/games.js';
import { invoke } from '../helpers/http.js';
import { idpToken } from '../helpers/idp.js';
import { inProcessFetch, inProcessPlayClient } from '../helpers/play.js';
import { createDeveloper, type Developer, hmacHeaders } from '../helpers/users.js';

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

  it("opens a session for a player of the game's own auth, which plays but never spends", async () => {
    const res = await start(
      await sign({ sub: 'player-7', aud: jwksGame.id, iss: 'https://auth.game.example' }),
    );
    expect(res.status).toBe(200);
    expect(res.body.data.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    // The game's own auth is the game's word, not the player's consent: its session has no buying scope.
    const session = (res.body.data as { sessionToken?: string }).sessionToken ?? '';
    const purchase = await invoke<{ error: { code: string } }>(purchaseHandler, {
      method: 'POST',
      path: '/multiplier/purchase',
      headers: { authorization: `Bearer ${session}` },
      body: { gameId: jwksGame.id, tier: '2x', durationSeconds: 3600, idempotencyKey: randomUUID() },
    });
    expect(purchase.status).toBe(403);
    expect(purchase.body.error.code).toBe('INSUFFICIENT_SCOPE');
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
    expect(metaOf(await getItem(metaKey(board))).height).toBe(0);
    // 500 = 7·64 + 52: level 1 of the score tree, above the height of 0 the batch save left.
    const { session, auth } = await open(g);
    const link = linkFor(session.sessionId, 1, 500, session.chainSeed);
    await flush(auth, link);
    expect(await commit(auth, { seq: 1, head: link.hash, total: 500 })).toMatchObject({
      committedPoints: 500,
    });
    expect(metaOf(await getItem(metaKey(board))).height).toBe(1);
    expect(metaOf(await getItem(metaKey({ kind: 'all', gameId: g.id }))).height).toBe(1);
    expect(await playerRank(board, low)).toMatchObject({ rank: 2, points: 10 });
    expect(await playerRank(board, auth.userId)).toMatchObject({ rank: 1, points: 500 });
  });
});

describe("the player's earning budget", () => {
  const RATE = PLAY_CAPS.maxPointsPerSecond.default;
  const BURST = PLAY_CAPS.maxBurstPoints.default;
  /** What the budget can give over `seconds` of flushing: the burst, then the rate. */
  const budgetOver = (seconds: number) => BURST + RATE * seconds;

  /** The DynamoDB requests made while `run` runs, by kind (the in-process handlers share the client). */
  const requestsDuring = async <T>(run: () => Promise<T>) => {
    const seen: string[] = [];
    const name = `count-${randomUUID()}`;
    dynamo().middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { TransactItems?: unknown[]; RequestItems?: unknown; Key?: unknown };
        seen.push(
          input.TransactItems
            ? `TransactWriteItems(${input.TransactItems.length})`
            : input.RequestItems
              ? 'BatchGetItem'
              : 'other',
        );
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      return { result: await run(), seen };
    } finally {
      dynamo().middlewareStack.remove(name);
    }
  };

  /** `rounds` flushes of `delta` by every client at once (each paced at 1/s): points accepted, seconds taken. */
  const flushAtOnce = async (clients: PlayClient[], rounds: number, delta: number) => {
    const t0 = Date.now();
    let accepted = 0;
    for (let round = 0; round < rounds; round++) {
      const answers = await Promise.all(clients.map((c) => c.flush(delta)));
      accepted += answers.reduce((sum, a) => sum + a.accepted, 0);
    }
    return { accepted, seconds: (Date.now() - t0) / 1000 };
  };

  it('accepts ten parallel sessions of one player no more points per second than one session', async () => {
    const g = await registerGame(dev);
    const alone = inProcessPlayClient();
    await alone.start(g.id, await idpToken(`solo-${randomUUID().slice(0, 8)}`));
    const token = await idpToken(`par-${randomUUID().slice(0, 8)}`);
    const ten = Array.from({ length: 10 }, () => inProcessPlayClient());
    for (const client of ten) await client.start(g.id, token);
    expect(new Set(ten.map((c) => c.sessionId)).size).toBe(10);

    const one = await flushAtOnce([alone], 3, 5_000);
    const { result: parallel, seen } = await requestsDuring(() => flushAtOnce(ten, 3, 5_000));
    // Each session had its own 1000 points/s before: ten sessions took ten times what one did.
    expect(parallel.accepted).toBeLessThanOrEqual(one.accepted + RATE * parallel.seconds);
    expect(parallel.accepted).toBeLessThanOrEqual(budgetOver(parallel.seconds));
    expect(one.accepted).toBeLessThanOrEqual(budgetOver(one.seconds));
    // 30 flushes, each at least one transaction; the others are retries after a parallel session drew first. The
    // flush that flags a session (parallel sessions are a risk signal) carries its webhook event as a third item.
    const attempts = seen.filter((k) => /^TransactWriteItems\([23]\)$/.test(k)).length;
    expect(attempts).toBeGreaterThanOrEqual(30);
    console.info(
      `ten parallel sessions: ${parallel.accepted} points in ${parallel.seconds.toFixed(2)} s ` +
        `(one session: ${one.accepted} in ${one.seconds.toFixed(2)} s); ${attempts} flush transactions for ` +
        `30 flushes (${(attempts / 30).toFixed(2)} attempts per flush)`,
    );
    // What they saw is what counted: every session's pending points add up to the points accepted.
    const pending = await Promise.all(ten.map((c) => c.resync()));
    expect(pending.reduce((sum, st) => sum + st.pendingPoints, 0)).toBe(parallel.accepted);
  }, 60_000);

  it('never lets concurrent flushes of parallel sessions spend the same tokens', async () => {
    const g = await registerGame(dev);
    const player = { scheme: 'bearer' as const, userId: (await createDeveloper()).arcId };
    const t0 = Date.now();
    const sessions = await Promise.all(
      Array.from({ length: 10 }, () => openSession(player, g.id, new Date(t0))),
    );
    // All at the same instant, each asking for the whole burst: the burst is given once in all.
    const at = new Date(t0 + 1000);
    const answers = await Promise.all(
      sessions.map((s) =>
        flush(
          { scheme: 'session', userId: player.userId, sessionId: s.sessionId, gameId: g.id },
          linkFor(s.sessionId, 1, BURST, s.chainSeed, at.getTime()),
          at,
        ),
      ),
    );
    expect(answers.reduce((sum, a) => sum + a.accepted, 0)).toBe(BURST);
  });

  it('costs a flush two DynamoDB requests, the budget riding in both', async () => {
    const { session, auth } = await open(await registerGame(dev));
    const { result, seen } = await requestsDuring(() =>
      flush(auth, linkFor(session.sessionId, 1, 10, session.chainSeed)),
    );
    expect(result.accepted).toBe(10);
    expect(seen).toEqual(['BatchGetItem', 'TransactWriteItems(2)']);
  });

  it('lets an idle session bank no points beyond the burst', async () => {
    const g = await registerGame(dev);
    const t0 = Date.now();
    const { session, auth, player } = await open(g, new Date(t0));
    const at = (seconds: number) => new Date(t0 + seconds * 1000);
    // An hour idle: the per-session bound allowed 1000 points for every second of it.
    const a = linkFor(session.sessionId, 1, 1_000_000, session.chainSeed, at(3600).getTime());
    expect(await flush(auth, a, at(3600))).toMatchObject({ accepted: BURST, reason: 'implausible_rate' });
    // Drained: the next second brings the rate, and the clipped rest was dropped, not carried over.
    const b = linkFor(session.sessionId, 2, 1_000_000, a.hash, at(3601).getTime());
    expect(await flush(auth, b, at(3601))).toMatchObject({ accepted: RATE, reason: 'implausible_rate' });
    // Idle again for almost an hour: the burst again, not an hour of the rate.
    const c = linkFor(session.sessionId, 3, 1_000_000, b.hash, at(7000).getTime());
    expect(await flush(auth, c, at(7000))).toMatchObject({ accepted: BURST });
    // A new session of the same player draws on the same budget: one second of the rate is all there is.
    const second = await openSession(player, g.id, at(7000));
    const auth2: AuthContext = { ...auth, sessionId: second.sessionId };
    const d = linkFor(second.sessionId, 1, 1_000_000, second.chainSeed, at(7001).getTime());
    expect(await flush(auth2, d, at(7001))).toMatchObject({ accepted: RATE, reason: 'implausible_rate' });
    // Within the budget nothing is clipped.
    const e = linkFor(second.sessionId, 2, 50, d.hash, at(7002).getTime());
    expect(await flush(auth2, e, at(7002))).toMatchObject({ accepted: 50, reason: null });
    expect(await sessionState(auth)).toMatchObject({
      pendingPoints: 2 * BURST + RATE,
      claimedTotal: 3_000_000,
    });
  });

  it('gives a game registered without caps the defaults, and applies them', async () => {
    const g = await registerGame(dev);
    expect(g).toMatchObject({
      maxScorePerSession: 100_000,
      maxSessionsPerDay: 100,
      maxCumulativePointsPerDay: 1_000_000,
      maxPointsPerSecond: 100,
      maxBurstPoints: 1_000,
    });
    // maxSessionsPerDay: the 101st session of the day is refused.
    const player = { scheme: 'bearer' as const, userId: (await createDeveloper()).arcId };
    for (let i = 0; i < 10; i++)
      await Promise.all(Array.from({ length: 10 }, () => openSession(player, g.id)));
    expect(await codeOf(openSession(player, g.id))).toBe('SESSION_LIMIT_REACHED');
    // maxScorePerSession and maxCumulativePointsPerDay bound the developer's batch save too.
    const saved = await batchSavePoints(
      { scheme: 'hmac', userId: dev.arcId },
      {
        gameId: g.id,
        entries: Array.from({ length: 11 }, (_, i) => ({
          playerId: `x:capped${player.userId.slice(0, 8)}`,
          points: 250_000,
          sessionId: `match-${i}`,
        })),
      },
      { directory: localDirectory },
    );
    expect(saved.results.slice(0, 10).map((r) => [r.accepted, r.reason])).toEqual(
      Array.from({ length: 10 }, () => [100_000, 'max_score_per_session']),
    );
    expect(saved.results[10]).toMatchObject({ accepted: 0, reason: 'max_cumulative_points_per_day' });
    // The budget: a first flush takes the burst, not the 1000 points per second a session had.
    const { session, auth } = await open(g);
    expect(await flush(auth, linkFor(session.sessionId, 1, 5_000, session.chainSeed))).toMatchObject({
      accepted: 1_000,
      reason: 'implausible_rate',
    });
  });

  it('gives a game that raises its caps the caps it set, up to the maximums', async () => {
    const raised = {
      maxScorePerSession: 5_000_000,
      maxSessionsPerDay: 500,
      maxCumulativePointsPerDay: 50_000_000,
      maxPointsPerSecond: 5_000,
      maxBurstPoints: 60_000,
    };
    const g = await registerGame(dev, raised);
    expect(g).toMatchObject(raised);
    const t0 = Date.now();
    const { session, auth } = await open(g, new Date(t0));
    const a = linkFor(session.sessionId, 1, 1_000_000, session.chainSeed, t0 + 1000);
    expect((await flush(auth, a, new Date(t0 + 1000))).accepted).toBe(60_000);
    const b = linkFor(session.sessionId, 2, 1_000_000, a.hash, t0 + 2000);
    expect((await flush(auth, b, new Date(t0 + 2000))).accepted).toBe(5_000);
    // Above a maximum is a 400 naming the field; an update raises a cap for the sessions opened after it.
    for (const [field, max] of Object.entries(PLAY_CAPS).map(([k, v]) => [k, v.max] as const)) {
      const res = await postGame(dev, gameBody({ [field]: max + 1 }));
      expect(res.status).toBe(400);
      expect(res.text).toContain(field);
    }
    const before = await open(g);
    const path = `/games/update/${g.id}`;
    const updated = await invoke<{ data: { game: GameView } }>(updateGameHandler, {
      method: 'POST',
      path,
      pathParameters: { gameId: g.id },
      headers: hmacHeaders(dev, 'POST', path),
      body: { maxBurstPoints: PLAY_CAPS.maxBurstPoints.max, maxPointsPerSecond: null },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data.game).toMatchObject({
      maxBurstPoints: PLAY_CAPS.maxBurstPoints.max,
      maxPointsPerSecond: PLAY_CAPS.maxPointsPerSecond.default,
      maxScorePerSession: raised.maxScorePerSession,
    });
    const after = await open(g);
    expect(
      (await flush(before.auth, linkFor(before.session.sessionId, 1, 1_000_000, before.session.chainSeed)))
        .accepted,
    ).toBe(60_000);
    expect(
      (await flush(after.auth, linkFor(after.session.sessionId, 1, 1_000_000, after.session.chainSeed)))
        .accepted,
    ).toBe(1_000_000);
  });

  it('scores sessions that run in parallel with other sessions of the player, and lists them as risky', async () => {
    const g = await registerGame(dev);
    const t0 = Date.now();
    const play = async (sessions: number) => {
      const player = { scheme: 'bearer' as const, userId: (await createDeveloper()).arcId };
      const opened = await Promise.all(
        Array.from({ length: sessions }, () => openSession(player, g.id, new Date(t0))),
      );
      const heads = opened.map((s) => s.chainSeed);
      // Three rounds, every session flushing a few points within the budget (nothing clipped).
      for (let round = 1; round <= 3; round++) {
        const at = t0 + round * 1000 + Math.floor(Math.random() * 300);
        await Promise.all(
          opened.map(async (s, i) => {
            const link = linkFor(s.sessionId, round, 5, heads[i] ?? '', at);
            await flush(
              { scheme: 'session', userId: player.userId, sessionId: s.sessionId, gameId: g.id },
              link,
              new Date(at),
            );
            heads[i] = link.hash;
          }),
        );
      }
      return { arcId: player.userId, sessionIds: opened.map((s) => s.sessionId) };
    };
    const ten = await play(10);
    const two = await play(2);
    const solo = await play(1);
    const path = `/play/dev/risky-sessions/${g.id}`;
    const risky = await invoke<{
      data: Array<{ sessionId: string; arcId: string; riskScore: number; riskReasons: string[] }>;
    }>(listRiskyHandler, {
      method: 'GET',
      path,
      pathParameters: { gameId: g.id },
      headers: hmacHeaders(dev, 'GET', path),
    });
    expect(risky.status).toBe(200);
    // The ten sessions of one player are flagged for it; two (two devices) and one are not.
    expect(risky.body.data.map((s) => s.sessionId).sort()).toEqual([...ten.sessionIds].sort());
    for (const s of risky.body.data) {
      expect(s.riskReasons).toEqual(['parallel_sessions']);
      expect(s.riskScore).toBe(0.6);
    }
    const { devSessions } = await import('../../lib/play/queries.js');
    const listed = async (arcId: string) =>
      (await devSessions({ scheme: 'hmac', userId: dev.arcId }, g.id, { limit: 100, player: arcId })).data;
    for (const s of await listed(two.arcId))
      expect(s).toMatchObject({ riskScore: 0.2, riskReasons: ['parallel_sessions'] });
    for (const s of await listed(solo.arcId)) expect(s).toMatchObject({ riskScore: 0, riskReasons: [] });
  });
});
