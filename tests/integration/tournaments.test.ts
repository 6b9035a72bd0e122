// Tournaments through the local stack: the routes in-process (HMAC, session tokens), saves through the batch-save
// use case with a controlled clock (period boundaries to the second), boards compared with a recount of entries.
import { randomBytes, randomUUID } from 'node:crypto';
import bs58 from 'bs58';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as cancelHandler } from '../../functions/tournaments/cancel-tournament.js';
import { handler as createHandler } from '../../functions/tournaments/create-tournament.js';
import { handler as getHandler } from '../../functions/tournaments/get-tournament.js';
import { handler as boardHandler } from '../../functions/tournaments/get-tournament-board.js';
import { handler as joinHandler } from '../../functions/tournaments/join-tournament.js';
import { handler as entriesHandler } from '../../functions/tournaments/list-my-tournament-entries.js';
import { handler as periodsHandler } from '../../functions/tournaments/list-tournament-periods.js';
import { handler as listHandler } from '../../functions/tournaments/list-tournaments.js';
import { handler as updateHandler } from '../../functions/tournaments/update-tournament.js';
import type { GameView } from '../../lib/games/contracts.js';
import {
  batchSavePoints,
  getItems,
  invalidateSessions,
  periodBoard,
  playerRank,
  rankReads,
  tournamentPlayKeys,
} from '../../lib/play/index.js';
import { issueSessionToken } from '../../lib/play/protocol/token.js';
import { byRank, type Standing } from '../../lib/play/ranks/board.js';
import { runningPeriods, tournamentBoard } from '../../lib/tournaments/index.js';
import { localDirectory } from '../../lib/user/directory.js';
import { registerGame } from '../helpers/games.js';
import { type Handler, invoke } from '../helpers/http.js';
import { idpToken } from '../helpers/idp.js';
import { inProcessPlayClient } from '../helpers/play.js';
import { createDeveloper, type Developer, hmacHeaders } from '../helpers/users.js';

type Body = {
  data: Record<string, unknown> & {
    tournamentId: string;
    current: { id: string } | null;
    next: { id: string; startsAt: string } | null;
  };
  error: { code: string; details: Array<{ path: string; message: string }> };
  meta: { nextCursor: string | null };
};

let alice: Developer;
let bob: Developer;
let game: GameView;
const auth = () => ({ scheme: 'hmac' as const, userId: alice.arcId });

/** The next whole hour at least ten minutes away: periods start in the future, so definitions can change. */
const nextHour = () => {
  const t = Date.now() + 10 * 60_000;
  return new Date(Math.ceil(t / 3_600_000) * 3_600_000);
};
const iso = (d: Date) => `${d.toISOString().slice(0, 19)}Z`;
const plus = (d: Date, seconds: number) => new Date(d.getTime() + seconds * 1000);

const call = (
  handler: Handler,
  headers: Record<string, string>,
  method: string,
  path: string,
  pathParameters: Record<string, string>,
  body?: unknown,
  query?: Record<string, string>,
) =>
  invoke<Body>(handler, {
    method,
    path,
    pathParameters,
    headers,
    ...(body !== undefined ? { body } : {}),
    ...(query ? { query } : {}),
  });
const signed = (dev: Developer, method: string, path: string) => hmacHeaders(dev, method, path);
const base = (gameId = game.id) => `/tournaments/${gameId}`;
const create = (body: unknown, dev: Developer = alice, gameId = game.id) =>
  call(createHandler, signed(dev, 'POST', base(gameId)), 'POST', base(gameId), { gameId }, body);
const sessionHeaders = async (arcId: string, gameId = game.id) => ({
  authorization: `Bearer ${await issueSessionToken({ arcId, sessionId: randomUUID(), gameId }, new Date(Date.now() + 600_000))}`,
});

const wallet = () => `sol:${bs58.encode(randomBytes(32))}`;
/** Saves with the clock at `at`, scoring the game's running tournaments as the function does. */
const save = (at: Date, entries: Array<{ playerId: string; points: number; sessionId?: string }>) =>
  batchSavePoints(
    auth(),
    { gameId: game.id, entries },
    {
      directory: localDirectory,
      tournaments: runningPeriods,
      now: () => at,
    },
  );

/** Every entry of a period, from the entries themselves (the source of truth), in board order. */
const recount = async (tournamentId: string, period: string, arcIds: string[]): Promise<Standing[]> => {
  const keys = arcIds.map((a) => tournamentPlayKeys.entry(game.id, a, tournamentId, period));
  const items = await getItems(keys);
  return keys
    .flatMap((k, i) => {
      const item = items.get(`${k.pk}|${k.sk}`);
      const points = Number(item?.points ?? 0);
      return points > 0 ? [{ arcId: arcIds[i] as string, points, reachedAt: String(item?.reachedAt) }] : [];
    })
    .sort(byRank);
};

const board = (tournamentId: string, period: string, at: Date, query: Record<string, unknown> = {}) =>
  tournamentBoard(
    auth(),
    { gameId: game.id, tournamentId, periodId: period },
    { limit: 100, offset: 0, ...query },
    at,
  );

beforeAll(async () => {
  [alice, bob] = await Promise.all([createDeveloper(), createDeveloper()]);
  game = await registerGame(alice);
});

describe('scheduling a tournament', () => {
  it('creates, lists, reads, updates before the start and cancels; 400s name the field', async () => {
    const start = nextHour();
    const body = {
      title: 'Hourly sprint',
      startsAt: iso(start),
      recurrence: { everySeconds: 3600 },
      durationSeconds: 3600,
      prizes: [
        { fromRank: 1, toRank: 1, bps: 5000 },
        { fromRank: 2, toRank: 3, bps: 1000 },
      ],
      prizePool: { rewardsPoolBps: 500 },
      metadata: { mode: 'arena' },
    };
    const created = await create(body);
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      title: 'Hourly sprint',
      scoring: 'sum',
      status: 'scheduled',
      current: null,
    });
    expect(created.body.data.next?.startsAt).toBe(iso(start));
    const id = created.body.data.tournamentId;
    const path = `${base()}/${id}`;
    const params = { gameId: game.id, tournamentId: id };

    const updated = await call(updateHandler, signed(alice, 'PUT', path), 'PUT', path, params, {
      ...body,
      title: 'Renamed',
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data.title).toBe('Renamed');
    const got = await call(getHandler, signed(alice, 'GET', path), 'GET', path, params);
    expect(got.body.data.title).toBe('Renamed');

    const bad = async (patch: Record<string, unknown>, field: string) => {
      const res = await create({ ...body, ...patch });
      expect(res.status, JSON.stringify(patch)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details.map((d) => d.path)).toContain(field);
    };
    await bad(
      {
        prizes: [
          { fromRank: 1, toRank: 3, bps: 100 },
          { fromRank: 2, toRank: 4, bps: 100 },
        ],
      },
      'prizes.1.fromRank',
    );
    await bad({ prizes: [{ fromRank: 1, toRank: 2, bps: 6000 }] }, 'prizes');
    await bad({ prizePool: null }, 'prizePool');
    await bad({ prizes: [] }, 'prizes');
    await bad({ prizePool: { rewardsPoolBps: 5001 } }, 'prizePool.rewardsPoolBps');
    await bad({ payoutDelaySeconds: 10 }, 'payoutDelaySeconds');
    await bad({ recurrence: null, durationSeconds: null, endsAt: iso(plus(start, -60)) }, 'endsAt');
    await bad({ recurrence: { cron: '0 0 30 2 *' } }, 'recurrence.cron');
    await bad({ durationSeconds: 7200 }, 'durationSeconds');
    await bad({ scoring: 'best' }, 'maxAttempts');
    await bad({ startsAt: iso(plus(new Date(), -3600)) }, 'startsAt');
    await bad({ metadata: { blob: 'x'.repeat(5000) } }, 'metadata');

    expect((await create(body, bob)).status).toBe(403);
    expect((await create(body, alice, randomUUID())).status).toBe(404);
    const unsigned = await call(createHandler, {}, 'POST', base(), { gameId: game.id }, body);
    expect(unsigned.status).toBe(401);

    const cancelled = await call(
      cancelHandler,
      signed(alice, 'POST', `${path}/cancel`),
      'POST',
      `${path}/cancel`,
      params,
    );
    expect(cancelled.body.data).toMatchObject({ status: 'cancelled', next: null });
    // The studio lists every tournament; a player's session token only the scheduled ones.
    const studio = await call(listHandler, signed(alice, 'GET', base()), 'GET', base(), { gameId: game.id });
    expect(studio.status).toBe(200);
    expect(
      (studio.body.data as unknown as Array<{ tournamentId: string }>).map((t) => t.tournamentId),
    ).toContain(id);
    const player = await call(listHandler, await sessionHeaders(randomUUID()), 'GET', base(), {
      gameId: game.id,
    });
    expect(player.status).toBe(200);
    expect(
      (player.body.data as unknown as Array<{ tournamentId: string }>).map((t) => t.tournamentId),
    ).not.toContain(id);
    // Another game's session token is refused.
    const other = await call(listHandler, await sessionHeaders(randomUUID(), randomUUID()), 'GET', base(), {
      gameId: game.id,
    });
    expect(other.status).toBe(403);
  });

  it('refuses a change once the first period has started', async () => {
    const start = new Date(Math.floor(Date.now() / 1000) * 1000);
    const body = { title: 'Now', startsAt: iso(start), endsAt: iso(plus(start, 3600)) };
    const created = await create(body);
    expect(created.status).toBe(201);
    expect(created.body.data.current?.id).toBe(iso(start));
    const id = created.body.data.tournamentId;
    const path = `${base()}/${id}`;
    const res = await call(
      updateHandler,
      signed(alice, 'PUT', path),
      'PUT',
      path,
      { gameId: game.id, tournamentId: id },
      body,
    );
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('TOURNAMENT_STARTED');
    // A player's session token may not schedule: recognised, and refused for its scope.
    const byPlayer = await call(
      createHandler,
      await sessionHeaders(randomUUID()),
      'POST',
      base(),
      { gameId: game.id },
      body,
    );
    expect(byPlayer.status).toBe(403);
    expect(byPlayer.body.error.code).toBe('INSUFFICIENT_SCOPE');
    await call(cancelHandler, signed(alice, 'POST', `${path}/cancel`), 'POST', `${path}/cancel`, {
      gameId: game.id,
      tournamentId: id,
    });
  });
});

describe('a recurring tournament under a controlled clock', () => {
  it('takes points only inside each period, to the second, and archives each period’s board', async () => {
    const start = nextHour();
    const created = await create({
      title: 'Every hour',
      startsAt: iso(start),
      recurrence: { everySeconds: 3600 },
      durationSeconds: 3600,
    });
    const id = created.body.data.tournamentId;
    const [p1, p2] = [iso(start), iso(plus(start, 3600))];
    const [a, b, c] = [wallet(), wallet(), wallet()];
    const arc: Record<string, string> = {};
    const saveAt = async (at: Date, entries: Array<{ playerId: string; points: number }>) =>
      Object.assign(arc, (await save(at, entries)).playerIdToArcId);
    await saveAt(plus(start, -1), [{ playerId: a, points: 500 }]);
    await saveAt(start, [
      { playerId: a, points: 100 },
      { playerId: b, points: 300 },
    ]);
    await saveAt(new Date(plus(start, 3600).getTime() - 1), [{ playerId: c, points: 200 }]);
    // The next period opens at the exact second: these count there, not in the first.
    await saveAt(plus(start, 3600), [
      { playerId: a, points: 700 },
      { playerId: c, points: 50 },
    ]);

    const first = await board(id, p1, plus(start, 7200));
    expect(first.period).toMatchObject({ id: p1, status: 'ended', entrants: 3 });
    expect(first.entries.map((e) => [e.arcId, e.points])).toEqual([
      [arc[b], 300],
      [arc[c], 200],
      [arc[a], 100],
    ]);
    // Entries carry the identifier the studio saved them under.
    expect(first.entries.map((e) => e.playerId)).toEqual([b, c, a]);
    const second = await board(id, p2, plus(start, 3700), { arcId: arc[c] });
    expect(second.entries.map((e) => e.points)).toEqual([700, 50]);
    expect(second.player).toMatchObject({ rank: 2, points: 50 });
    expect(second.period.status).toBe('running');

    // Both periods are listed, newest first, as the studio and as a player.
    const path = `${base()}/${id}/periods`;
    const periods = await call(periodsHandler, signed(alice, 'GET', path), 'GET', path, {
      gameId: game.id,
      tournamentId: id,
    });
    expect((periods.body.data as unknown as Array<{ id: string }>).map((p) => p.id)).toEqual([p2, p1]);
    // A period that never started has no board yet.
    await expect(board(id, iso(plus(start, 7200)), plus(start, 3700))).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('counts a join-required tournament for entrants only, and refuses the entrant past the maximum', async () => {
    const start = nextHour();
    const created = await create({
      title: 'Invitational',
      startsAt: iso(start),
      endsAt: iso(plus(start, 600)),
      joinRequired: true,
      maxEntrants: 2,
    });
    const id = created.body.data.tournamentId;
    const [a, b, c] = [wallet(), wallet(), wallet()];
    const arc = (
      await save(
        plus(start, -3600),
        [a, b, c].map((playerId) => ({ playerId, points: 1 })),
      )
    ).playerIdToArcId;
    const join = async (arcId: string) => {
      const path = `${base()}/${id}/join`;
      return call(joinHandler, await sessionHeaders(arcId), 'POST', path, {
        gameId: game.id,
        tournamentId: id,
      });
    };
    // Before the start, a join enters the first period.
    const joined = await join(arc[a] as string);
    expect(joined.status).toBe(201);
    expect(joined.body.data).toMatchObject({ period: iso(start), points: 0 });
    expect((await join(arc[a] as string)).status).toBe(200);
    expect((await join(arc[b] as string)).status).toBe(201);
    const full = await join(arc[c] as string);
    expect(full.status).toBe(409);
    expect(full.body.error.code).toBe('TOURNAMENT_FULL');

    await save(
      plus(start, 10),
      [a, b, c].map((playerId, i) => ({ playerId, points: 10 * (i + 1) })),
    );
    const standings = await board(id, iso(start), plus(start, 20));
    expect(standings.entries.map((e) => [e.arcId, e.points])).toEqual([
      [arc[b], 20],
      [arc[a], 10],
    ]);
    // The player sees its own entries.
    const path = `/tournament-entries/${game.id}/me`;
    const mine = await call(entriesHandler, await sessionHeaders(arc[b] as string), 'GET', path, {
      gameId: game.id,
    });
    // (the game's other open tournaments running then entered it too)
    expect(mine.body.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ tournamentId: id, period: iso(start), points: 20, attempts: 1 }),
      ]),
    );
    // And reads the board with its session token, with its own rank.
    const boardPath = `${base()}/${id}/periods/${iso(start)}/board`;
    const read = await call(
      boardHandler,
      await sessionHeaders(arc[a] as string),
      'GET',
      boardPath,
      { gameId: game.id, tournamentId: id, periodId: iso(start) },
      undefined,
      { me: 'true' },
    );
    // The real clock is before the start: the board does not exist yet for the API.
    expect(read.status).toBe(404);
  });

  it('fills an open tournament to its maximum from concurrent saves, never past it', async () => {
    const start = nextHour();
    const created = await create({
      title: 'First come',
      startsAt: iso(start),
      endsAt: iso(plus(start, 600)),
      maxEntrants: 5,
    });
    const id = created.body.data.tournamentId;
    const players = Array.from({ length: 12 }, wallet);
    await Promise.all([
      save(
        plus(start, 5),
        players.slice(0, 6).map((playerId) => ({ playerId, points: 10 })),
      ),
      save(
        plus(start, 5),
        players.slice(6).map((playerId) => ({ playerId, points: 20 })),
      ),
    ]);
    const period = await board(id, iso(start), plus(start, 10));
    expect(period.period.entrants).toBe(5);
    expect(period.entries).toHaveLength(5);
  });

  it('bounds attempts, keeps the best session for `best`, and takes invalidated points back out', async () => {
    const start = nextHour();
    const sum = (
      await create({ title: 'Sum', startsAt: iso(start), endsAt: iso(plus(start, 600)), maxAttempts: 2 })
    ).body.data.tournamentId;
    const best = (
      await create({
        title: 'Best',
        startsAt: iso(start),
        endsAt: iso(plus(start, 600)),
        scoring: 'best',
        maxAttempts: 3,
      })
    ).body.data.tournamentId;
    const p = wallet();
    const at = plus(start, 30);
    const s = (n: number) => `${randomUUID()}-s${n}`;
    const [s1, s2, s3, s4] = [s(1), s(2), s(3), s(4)];
    const arcId = (
      await save(at, [
        { playerId: p, points: 100, sessionId: s1 },
        { playerId: p, points: 300, sessionId: s2 },
      ])
    ).playerIdToArcId[p] as string;
    await save(at, [
      { playerId: p, points: 200, sessionId: s3 },
      { playerId: p, points: 50, sessionId: s1 },
    ]);
    await save(at, [{ playerId: p, points: 1000, sessionId: s4 }]);
    // sum: attempts s1 and s2 only (s3 and s4 past maxAttempts 2): 100 + 300 + 50.
    expect((await board(sum, iso(start), at)).entries[0]?.points).toBe(450);
    // best: s1 (150), s2 (300), s3 (200); s4 is the fourth attempt.
    expect((await board(best, iso(start), at)).entries[0]?.points).toBe(300);

    await invalidateSessions(auth(), { gameId: game.id, sessionIds: [s2] }, at);
    expect((await board(sum, iso(start), at)).entries[0]?.points).toBe(150);
    expect((await board(best, iso(start), at)).entries[0]).toMatchObject({ arcId, points: 200 });
  });

  it('ranks every entrant as a recount does after random concurrent saves', async () => {
    const start = nextHour();
    const id = (await create({ title: 'Busy', startsAt: iso(start), endsAt: iso(plus(start, 3600)) })).body
      .data.tournamentId;
    const players = Array.from({ length: 40 }, wallet);
    const at = (i: number) => plus(start, 1 + i);
    const arc = (
      await save(
        at(0),
        players.map((playerId) => ({ playerId, points: 10 })),
      )
    ).playerIdToArcId;
    await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        save(
          at(i + 1),
          Array.from({ length: 30 }, () => ({
            playerId: players[Math.floor(Math.random() * players.length)] as string,
            points: 10 * (1 + Math.floor(Math.random() * 3)),
          })),
        ),
      ),
    );
    const arcIds = players.map((w) => arc[w] as string);
    const expected = await recount(id, iso(start), arcIds);
    expect(expected).toHaveLength(40);
    const pb = periodBoard(game.id, { tournamentId: id, period: iso(start) });
    expect(await rankReads.pageOf(pb, 0, 100)).toEqual(expected.map(({ shard: _, ...s }) => s));
    const ranks = await Promise.all(expected.map((s) => playerRank(pb, s.arcId)));
    expect(ranks.map((r) => r?.rank)).toEqual(expected.map((_, i) => i + 1));
  });
});

describe('SDK commits', () => {
  it('count into a running tournament the player joined (the session is one attempt), not for others', async () => {
    const start = new Date(Math.floor(Date.now() / 1000) * 1000);
    const id = (
      await create({
        title: 'Live',
        startsAt: iso(start),
        endsAt: iso(plus(start, 3600)),
        joinRequired: true,
      })
    ).body.data.tournamentId;
    const play = async (points: number, join: boolean) => {
      const token = await idpToken(`t-${randomUUID().slice(0, 8)}`);
      if (join) {
        const path = `${base()}/${id}/join`;
        const joined = await call(joinHandler, { authorization: `Bearer ${token}` }, 'POST', path, {
          gameId: game.id,
          tournamentId: id,
        });
        expect(joined.status).toBe(201);
      }
      const client = inProcessPlayClient({ pace: false });
      await client.start(game.id, token);
      await client.flush(points);
      await client.commit();
      return (await client.points()).arcId;
    };
    const [entrant, outsider] = await Promise.all([play(40, true), play(25, false)]);
    const read = await board(id, iso(start), new Date(), { arcId: entrant });
    expect(read.entries.map((e) => [e.arcId, e.points])).toEqual([[entrant, 40]]);
    expect(read.entries.map((e) => e.arcId)).not.toContain(outsider);
    expect(read.player).toMatchObject({ rank: 1, points: 40 });
    // The player reads the running period's board with its session token, with its own rank.
    const periodId = iso(start);
    const boardPath = `${base()}/${id}/periods/${periodId}/board`;
    const own = await call(
      boardHandler,
      await sessionHeaders(entrant),
      'GET',
      boardPath,
      { gameId: game.id, tournamentId: id, periodId },
      undefined,
      { me: 'true' },
    );
    expect(own.status).toBe(200);
    expect(own.body.data).toMatchObject({
      period: { id: periodId, status: 'running' },
      player: { arcId: entrant, rank: 1, points: 40 },
    });
  });
});
