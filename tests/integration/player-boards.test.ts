// A game's client reads its boards and names its player, through the real handlers on the local stack: with a
// play session token or the player's identity token, never the developer's key; entries carry the identifier the
// studio knows each player by and the display name set by the player or the studio. The developer-only
// operations stay closed to players' tokens, and the page's labels cost one wave of two batched reads.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as getLeaderboard } from '../../functions/play/get-leaderboard.js';
import { handler as getMyRank } from '../../functions/play/get-my-rank.js';
import { handler as sessionTokenHandler } from '../../functions/play/get-session-token.js';
import { handler as setMyName } from '../../functions/play/set-my-display-name.js';
import { handler as batchSave } from '../../functions/play-developer/batch-save-points.js';
import { handler as devLeaderboard } from '../../functions/play-developer/get-dev-leaderboard.js';
import { handler as invalidate } from '../../functions/play-developer/invalidate-sessions.js';
import { handler as setPlayerName } from '../../functions/play-developer/set-player-display-name.js';
import { readCapacity, resetCapacity } from '../../lib/adapters/capacity.js';
import type { GameView } from '../../lib/games/contracts.js';
import { utcDay } from '../../lib/play/keys.js';
import { playerLeaderboard } from '../../lib/play/ranks/player-boards.js';
import { pageOf } from '../../lib/play/ranks/reads.js';
import { batchSavePoints } from '../../lib/play/saves/save.js';
import { localDirectory } from '../../lib/user/directory.js';
import { registerGame } from '../helpers/games.js';
import { type Handler, invoke } from '../helpers/http.js';
import { idpToken } from '../helpers/idp.js';
import { inProcessPlayClient } from '../helpers/play.js';
import { createDeveloper, type Developer, hmacHeaders } from '../helpers/users.js';

// Read once, when the adapter builds its client (the first dynamo() call, in beforeAll): the round-trip test
// counts the requests of a page read.
process.env.DYNAMODB_CAPACITY = 'count';

interface Entry {
  rank: number;
  arcId: string;
  playerId: string | null;
  displayName: string | null;
  points: number;
}
interface Board {
  data: { period: string; day: string | null; entries: Entry[] };
  error?: { code: string; message: string; details: Array<{ path: string; message: string }> };
}
interface Me {
  data: {
    period: string;
    day: string | null;
    player: Omit<Entry, 'rank'> & { rank: number | null; neighbours: Entry[] };
  };
  error?: { code: string };
}
interface NameAnswer {
  data: { arcId: string; displayName: string | null; locked: boolean };
  error?: { code: string; message: string };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A player signed in with the local identity provider, and a session of `game` opened over HTTP. */
interface Player {
  name: string;
  subject: string;
  idToken: string;
  sessionToken: string;
}

const signIn = async (game: GameView, name = `pb-${randomUUID().slice(0, 8)}`): Promise<Player> => {
  const idToken = await idpToken(name);
  const res = await invoke<{ data: { sessionToken: string } }>(sessionTokenHandler, {
    method: 'GET',
    path: '/play/session-token',
    query: { gameId: game.id },
    headers: bearer(idToken),
  });
  if (res.status !== 200) throw new Error(`session-token: ${res.status} ${res.text}`);
  return { name, subject: `did:local:${name}`, idToken, sessionToken: res.body.data.sessionToken };
};

const read = (gameId: string, token: string, query: Record<string, string> = {}) =>
  invoke<Board>(getLeaderboard, {
    method: 'GET',
    path: `/play/leaderboard/${gameId}`,
    pathParameters: { gameId },
    query,
    headers: bearer(token),
  });
const readMe = (gameId: string, token: string, query: Record<string, string> = {}) =>
  invoke<Me>(getMyRank, {
    method: 'GET',
    path: `/play/leaderboard/${gameId}/me`,
    pathParameters: { gameId },
    query,
    headers: bearer(token),
  });
const nameMe = (gameId: string, token: string, displayName: string | null) =>
  invoke<NameAnswer>(setMyName, {
    method: 'PUT',
    path: `/play/players/${gameId}/me/name`,
    pathParameters: { gameId },
    body: { displayName },
    headers: bearer(token),
  });
const studioNames = (
  dev: Developer,
  gameId: string,
  body: { playerId: string; displayName: string | null; locked?: boolean },
) => {
  const path = `/play/dev/players/${gameId}/name`;
  const raw = JSON.stringify(body);
  return invoke<NameAnswer>(setPlayerName, {
    method: 'PUT',
    path,
    pathParameters: { gameId },
    rawBody: raw,
    headers: { ...hmacHeaders(dev, 'PUT', path, { body: raw }), 'content-type': 'application/json' },
  });
};

let dev: Developer;
let game: GameView;
let other: GameView;
let ann: Player;
let bob: Player;
let stranger: Player;
const handle = `x:pb_${randomUUID().slice(0, 8)}`;
const email = `email:pb-${randomUUID().slice(0, 8)}@example.com`;

beforeAll(async () => {
  dev = await createDeveloper();
  [game, other] = await Promise.all([registerGame(dev), registerGame(dev)]);
  [ann, bob] = await Promise.all([signIn(game), signIn(game)]);
  stranger = await signIn(other);
  // Ann 300, the handle 200, Bob 150, the email 100: one board, distinct scores.
  await batchSavePoints(
    { scheme: 'hmac', userId: dev.arcId },
    {
      gameId: game.id,
      entries: [
        { playerId: ann.subject, points: 300 },
        { playerId: handle, points: 200 },
        { playerId: bob.subject, points: 150 },
        { playerId: email, points: 100 },
      ],
    },
    { directory: localDirectory },
  );
}, 120_000);

describe('a game client reads its boards', () => {
  // Reads are limited to 10 per 10 seconds per player: each test reads as a player of its own.
  it.each([
    ['a session token', (p: Player) => p.sessionToken],
    ["the player's identity token", (p: Player) => p.idToken],
  ])(
    'reads the daily and all-time boards with %s, entries carrying studio identifiers',
    async (_, tokenOf) => {
      const viewer = await signIn(game);
      const token = () => tokenOf(viewer);
      const queries: Array<Record<string, string>> = [
        {},
        { period: 'alltime' },
        { period: 'daily', day: utcDay(new Date()) },
      ];
      for (const query of queries) {
        const res = await read(game.id, token(), query);
        expect(res.status).toBe(200);
        expect(res.body.data.entries.map((e) => [e.rank, e.playerId, e.points])).toEqual([
          [1, ann.subject, 300],
          [2, handle, 200],
          [3, bob.subject, 150],
          // Another player's email is never shown to a player's client.
          [4, null, 100],
        ]);
      }
      const page = await read(game.id, token(), { limit: '2', offset: '1' });
      expect(page.body.data.entries.map((e) => e.rank)).toEqual([2, 3]);
      const yesterday = await read(game.id, token(), { day: '2020-01-01' });
      expect(yesterday.body.data).toEqual({ period: 'daily', day: '2020-01-01', entries: [] });
    },
  );

  it.each([
    ['a session token', () => bob.sessionToken],
    ["the player's identity token", () => bob.idToken],
  ])("reads the player's own rank with its neighbours with %s", async (_, token) => {
    const res = await readMe(game.id, token(), { period: 'alltime' });
    expect(res.status).toBe(200);
    expect(res.body.data.player).toMatchObject({ rank: 3, points: 150, playerId: bob.subject });
    expect(res.body.data.player.neighbours.map((n) => [n.rank, n.playerId])).toEqual([
      [1, ann.subject],
      [2, handle],
      [4, null],
    ]);
  });

  it('answers rank null for a player without points on the board', async () => {
    const res = await readMe(game.id, ann.sessionToken, { day: '2020-01-01' });
    expect(res.body.data.player).toMatchObject({ rank: null, points: 0, neighbours: [] });
  });

  it('refuses without a token or with a bad one (401), and a session token of another game (403)', async () => {
    const none = await invoke<Board>(getLeaderboard, {
      method: 'GET',
      path: `/play/leaderboard/${game.id}`,
      pathParameters: { gameId: game.id },
    });
    expect(none.status).toBe(401);
    expect((await read(game.id, 'not-a-token')).status).toBe(401);
    expect((await readMe(game.id, `${ann.sessionToken}x`)).status).toBe(401);
    for (const res of [
      await read(game.id, stranger.sessionToken),
      await readMe(game.id, stranger.sessionToken),
      await nameMe(game.id, stranger.sessionToken, 'Sneaky'),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.error?.code).toBe('INSUFFICIENT_SCOPE');
    }
    // An identity token names any game that exists.
    expect((await read(randomUUID(), stranger.idToken)).status).toBe(404);
  });

  it.each([
    [{ limit: '0' }, 'limit'],
    [{ limit: '101' }, 'limit'],
    [{ offset: '-1' }, 'offset'],
    [{ day: '2026-02-30' }, 'day'],
    [{ day: 'today' }, 'day'],
    [{ period: 'weekly' }, 'period'],
  ])('answers 400 for %j', async (query, field) => {
    const res = await read(game.id, (await signIn(game)).sessionToken, query);
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe('VALIDATION_ERROR');
    expect(res.body.error?.details.map((d) => d.path)).toContain(field);
  });

  it('answers 429 past 10 reads in 10 seconds by one player', async () => {
    const player = await signIn(game);
    const answers = await Promise.all(Array.from({ length: 11 }, () => read(game.id, player.sessionToken)));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(10);
    const limited = answers.filter((r) => r.status === 429);
    expect(limited).toHaveLength(1);
    expect(limited[0]?.body.error?.code).toBe('RATE_LIMITED');
    expect(Number(limited[0]?.headers['retry-after'])).toBeGreaterThan(0);
  });
});

describe('display names', () => {
  it("a player names itself (session or identity token); boards show the name, the studio's too", async () => {
    const set = await nameMe(game.id, ann.sessionToken, 'Ann the Bold');
    expect(set.status).toBe(200);
    expect(set.body.data).toEqual({ arcId: expect.any(String), displayName: 'Ann the Bold', locked: false });
    expect((await nameMe(game.id, bob.idToken, 'Zoe\u0308')).body.data.displayName).toBe('Zoë');
    const board = await read(game.id, (await signIn(game)).sessionToken);
    expect(board.body.data.entries.map((e) => e.displayName)).toEqual(['Ann the Bold', null, 'Zoë', null]);
    expect((await readMe(game.id, bob.sessionToken)).body.data.player.displayName).toBe('Zoë');

    const path = `/play/dev/leaderboard/${game.id}`;
    const studio = await invoke<Board & { data: { player: Me['data']['player'] } }>(devLeaderboard, {
      method: 'GET',
      path,
      pathParameters: { gameId: game.id },
      query: { player: bob.subject },
      headers: hmacHeaders(dev, 'GET', path),
    });
    expect(studio.status).toBe(200);
    // The studio sees the email it saved points under.
    expect(studio.body.data.entries.map((e) => [e.playerId, e.displayName])).toEqual([
      [ann.subject, 'Ann the Bold'],
      [handle, null],
      [bob.subject, 'Zoë'],
      [email, null],
    ]);
    expect(studio.body.data.player).toMatchObject({ rank: 3, displayName: 'Zoë' });
    expect(studio.body.data.player.neighbours.map((n) => n.displayName)).toEqual([
      'Ann the Bold',
      null,
      null,
    ]);
  });

  it('the studio names a player by its identifier and may lock the name against the player', async () => {
    const named = await studioNames(dev, game.id, { playerId: handle, displayName: 'Handle' });
    expect(named.status).toBe(200);
    expect(named.body.data).toMatchObject({ displayName: 'Handle', locked: false });
    const locked = await studioNames(dev, game.id, {
      playerId: bob.subject,
      displayName: 'Bob',
      locked: true,
    });
    expect(locked.body.data).toMatchObject({ displayName: 'Bob', locked: true });
    const refused = await nameMe(game.id, bob.sessionToken, 'Not Bob');
    expect(refused.status).toBe(403);
    expect(refused.body.error?.code).toBe('DISPLAY_NAME_LOCKED');
    const viewer = await signIn(game);
    const board = await read(game.id, viewer.sessionToken);
    expect(board.body.data.entries.map((e) => e.displayName)).toEqual([
      'Ann the Bold',
      'Handle',
      'Bob',
      null,
    ]);
    // Unlocked: the player may change it again; null removes it.
    await studioNames(dev, game.id, { playerId: bob.subject, displayName: 'Bob' });
    expect((await nameMe(game.id, bob.sessionToken, null)).body.data).toMatchObject({ displayName: null });
    expect((await read(game.id, viewer.sessionToken)).body.data.entries[2]?.displayName).toBeNull();
  });

  it.each([
    ['a'.repeat(33), /at most 32/],
    ['evil\u202Egnp', /U\+202E/],
    ['zero\u200Bwidth', /U\+200B/],
    ['star ★', /U\+2605/],
    ['', /empty/],
    [' x', /space/],
  ])(
    'refuses the name %j with 400 INVALID_DISPLAY_NAME, from the player and the studio',
    async (name, why) => {
      const mine = await nameMe(game.id, (await signIn(game)).sessionToken, name);
      expect(mine.status).toBe(400);
      expect(mine.body.error?.code).toBe('INVALID_DISPLAY_NAME');
      expect(mine.body.error?.message).toMatch(why);
      const studio = await studioNames(dev, game.id, { playerId: handle, displayName: name });
      expect(studio.status).toBe(400);
      expect(studio.body.error?.code).toBe('INVALID_DISPLAY_NAME');
    },
  );

  it("refuses the studio route for a player never seen (404) and for another developer's game (403)", async () => {
    const unknown = await studioNames(dev, game.id, { playerId: 'x:nobody_pb_404', displayName: 'Ghost' });
    expect(unknown.status).toBe(404);
    const outsider = await createDeveloper();
    const foreign = await studioNames(outsider, game.id, { playerId: handle, displayName: 'Mine' });
    expect(foreign.status).toBe(403);
  });
});

describe("the SDK's play client", () => {
  it('reads the board and its rank and sets its name with its session token', async () => {
    const client = inProcessPlayClient();
    const name = `pb-sdk-${randomUUID().slice(0, 8)}`;
    await client.start(game.id, await idpToken(name));
    expect((await client.setDisplayName('SDK Player')).displayName).toBe('SDK Player');
    await batchSavePoints(
      { scheme: 'hmac', userId: dev.arcId },
      { gameId: game.id, entries: [{ playerId: `did:local:${name}`, points: 175 }] },
      { directory: localDirectory },
    );
    const board = await client.leaderboard({ period: 'alltime', limit: 3 });
    expect(board.entries.map((e) => [e.rank, e.points])).toEqual([
      [1, 300],
      [2, 200],
      [3, 175],
    ]);
    expect(board.entries[2]).toMatchObject({ playerId: `did:local:${name}`, displayName: 'SDK Player' });
    const { player } = await client.myRank();
    expect(player).toMatchObject({ rank: 3, points: 175, displayName: 'SDK Player' });
    await expect(client.setDisplayName('bad\u202Ename')).rejects.toMatchObject({
      code: 'INVALID_DISPLAY_NAME',
    });
  });
});

describe("the developer-only operations with players' tokens", () => {
  const call = (handler: Handler, method: string, path: string, token: string, body?: unknown) =>
    invoke(handler, {
      method,
      path,
      pathParameters: { gameId: game.id },
      headers: bearer(token),
      ...(body === undefined ? {} : { body }),
    });
  const operations = (): Array<[string, Handler, string, string, unknown]> => [
    [
      'batch save',
      batchSave,
      'POST',
      '/play/dev/batch-save-points',
      { gameId: game.id, entries: [{ playerId: ann.subject, points: 1_000 }] },
    ],
    [
      'invalidate',
      invalidate,
      'POST',
      '/play/dev/invalidate-sessions',
      { gameId: game.id, sessionIds: ['x'] },
    ],
    ['dev leaderboard', devLeaderboard, 'GET', `/play/dev/leaderboard/${game.id}`, undefined],
    [
      'studio name',
      setPlayerName,
      'PUT',
      `/play/dev/players/${game.id}/name`,
      { playerId: ann.subject, displayName: 'Hijack', locked: true },
    ],
  ];

  it('refuses a session token (403 INSUFFICIENT_SCOPE) and a player identity token (403) on each', async () => {
    for (const [what, handler, method, path, body] of operations()) {
      const session = await call(handler, method, path, ann.sessionToken, body);
      const code = (session.body as { error?: { code: string } }).error?.code;
      expect([what, session.status, code]).toEqual([what, 403, 'INSUFFICIENT_SCOPE']);
      const identity = await call(handler, method, path, ann.idToken, body);
      expect([what, identity.status]).toEqual([what, 403]);
    }
    // Nothing changed: Ann's points and name are hers.
    const board = await read(game.id, (await signIn(game)).sessionToken);
    expect(board.body.data.entries[0]).toMatchObject({ points: 300, displayName: 'Ann the Bold' });
  });
});

describe('the round trips of a labelled page', () => {
  it('adds one wave of two BatchGetItem requests to the page read, whatever the page size', async () => {
    const auth = { scheme: 'session' as const, userId: ann.name, gameId: game.id, sessionId: randomUUID() };
    const board = { kind: 'all' as const, gameId: game.id };
    const count = async (work: () => Promise<unknown>) => {
      resetCapacity();
      await work();
      return readCapacity().operations;
    };
    for (const limit of [1, 4]) {
      const page = await count(() => pageOf(board, 0, limit));
      const labelled = await count(() =>
        playerLeaderboard(auth, game.id, { period: 'alltime', limit, offset: 0 }),
      );
      expect(labelled).toEqual({ ...page, BatchGetItem: (page.BatchGetItem ?? 0) + 2 });
    }
  });
});
