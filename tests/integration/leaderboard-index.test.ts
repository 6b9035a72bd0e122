// The rank index against a full recount: concurrent batches (the same players in several at once, many ties)
// and invalidations, then every player's rank, neighbours, the board's size and pages (shallow and through the
// score tree) compared with the order recomputed from the totals themselves.
import { randomBytes } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import bs58 from 'bs58';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { dynamo } from '../../lib/adapters/dynamodb.js';
import type { GameView } from '../../lib/games/contracts.js';
import { dayBoard, gamesActiveOn, invalidateSessions, playKeys } from '../../lib/play/index.js';
import { utcDay } from '../../lib/play/keys.js';
import { around, playerRank } from '../../lib/play/ranks/around.js';
import { type BoardRef, byRank, metaKey, type Standing } from '../../lib/play/ranks/board.js';
import { devLeaderboard } from '../../lib/play/ranks/leaderboard.js';
import { boardSize, pageOf, readMeta, scoreAt } from '../../lib/play/ranks/reads.js';
import { getItems, itemKey, playTable } from '../../lib/play/repository.js';
import { batchSavePoints, type SaveEntry } from '../../lib/play/saves/save.js';
import { localDirectory } from '../../lib/user/directory.js';
import { registerGame } from '../helpers/games.js';
import { createDeveloper, type Developer } from '../helpers/users.js';

const PLAYERS = 130;
const deps = { directory: localDirectory };

let dev: Developer;
let game: GameView;
let arcIds: string[] = [];
const auth = () => ({ scheme: 'hmac' as const, userId: dev.arcId });

/** Every player's total on a board, read from the totals (the source of truth), in leaderboard order. */
const recount = async (board: BoardRef): Promise<Standing[]> => {
  const keys = arcIds.map((arcId) =>
    board.kind === 'day' ? playKeys.day(game.id, arcId, board.day) : playKeys.allTime(game.id, arcId),
  );
  const items = await getItems(keys);
  return keys
    .flatMap((key, i) => {
      const item = items.get(itemKey(key));
      const points = Number(item?.points ?? 0);
      return points > 0 ? [{ arcId: arcIds[i] as string, points, reachedAt: String(item?.reachedAt) }] : [];
    })
    .sort(byRank);
};

const random = (n: number) => Math.floor(Math.random() * n);

beforeAll(async () => {
  dev = await createDeveloper();
  game = await registerGame(dev);
  const wallets = Array.from({ length: PLAYERS }, () => `sol:${bs58.encode(randomBytes(32))}`);
  // Everyone once (so every player exists), then waves of concurrent batches over overlapping players.
  const first = await batchSavePoints(
    auth(),
    { gameId: game.id, entries: wallets.slice(0, 100).map((playerId) => ({ playerId, points: 10 })) },
    deps,
  );
  const rest = await batchSavePoints(
    auth(),
    { gameId: game.id, entries: wallets.slice(100).map((playerId) => ({ playerId, points: 10 })) },
    deps,
  );
  const mapping = { ...first.playerIdToArcId, ...rest.playerIdToArcId };
  arcIds = wallets.map((w) => mapping[w] as string);
  const batch = (wave: number, n: number): SaveEntry[] =>
    Array.from({ length: 60 }, (_, i) => ({
      playerId: wallets[random(PLAYERS)] as string,
      // Few distinct values: many ties, broken by who reached them first.
      // Now and then a score past 4,096 (level 2 of the tree): concurrent batches race to raise the height.
      points: 10 * (1 + random(4)) + (i % 7 === 0 ? 64 * random(3) : 0) + (i % 23 === 5 ? 4_096 : 0),
      sessionId: `w${wave}-b${n}-${random(3)}`,
    }));
  for (let wave = 0; wave < 3; wave++) {
    await Promise.all(
      Array.from({ length: 4 }, (_, n) =>
        batchSavePoints(auth(), { gameId: game.id, entries: batch(wave, n) }, deps),
      ),
    );
  }
  // Invalidations racing saves: points leave both boards exactly once.
  await Promise.all([
    invalidateSessions(auth(), { gameId: game.id, sessionIds: ['w0-b0-0', 'w1-b1-1', 'w2-b2-2'] }),
    batchSavePoints(auth(), { gameId: game.id, entries: batch(3, 0) }, deps),
    invalidateSessions(auth(), { gameId: game.id, sessionIds: ['w0-b1-0', 'w1-b2-1'] }),
  ]);
}, 120_000);

describe.each([
  ['daily', (): BoardRef => ({ kind: 'day', gameId: game.id, day: utcDay(new Date()) })],
  ['all-time', (): BoardRef => ({ kind: 'all', gameId: game.id })],
])('the %s board after concurrent saves and invalidations', (_, boardOf) => {
  it('gives every player the rank and neighbours of a full recount', async () => {
    const board = boardOf();
    const expected = await recount(board);
    expect(expected.length).toBeGreaterThan(100);
    const ties = expected.length - new Set(expected.map((s) => s.points)).size;
    expect(ties).toBeGreaterThan(50);
    expect(await boardSize(board)).toBe(expected.length);
    // As the API reads it: the total and the board's meta item, then the counters up to the height.
    const answers = await Promise.all(expected.map((s) => playerRank(board, s.arcId)));
    // The same from the counters of every level (no height).
    const meta = { ...(await readMeta(board)), height: null };
    const full = await Promise.all(expected.slice(0, 40).map((s) => around(board, s, meta)));
    expect(full).toEqual(answers.slice(0, 40).map((a) => ({ rank: a?.rank, neighbours: a?.neighbours })));
    answers.forEach((answer, i) => {
      expect(answer?.points).toBe(expected[i]?.points);
      expect(answer?.rank).toBe(i + 1);
      const window = expected
        .map((s, r) => ({ rank: r + 1, arcId: s.arcId, points: s.points }))
        .slice(Math.max(0, i - 2), i + 3)
        .filter((n) => n.rank !== i + 1);
      expect(answer?.neighbours).toEqual(window);
    });
  }, 120_000);

  it('pages it from the top and from any offset through the score tree', async () => {
    const board = boardOf();
    const expected = (await recount(board)).map((s) => ({ ...s }));
    expect(await pageOf(board, 0, 100)).toEqual(expected.slice(0, 100));
    for (const offset of [0, 1, 37, 90, expected.length - 5, expected.length]) {
      // offset + limit > 100 takes the tree's select; a page past the end is empty.
      expect(await pageOf(board, offset, 60)).toEqual(expected.slice(offset, offset + 60));
    }
    const meta = await readMeta(board);
    for (const k of [1, 50, expected.length]) {
      const at = await scoreAt(board, k, meta);
      const points = expected[k - 1]?.points ?? -1;
      expect(at).toEqual({ points, above: expected.filter((s) => s.points > points).length });
    }
    expect(await scoreAt(board, expected.length + 1, meta)).toBeUndefined();
  }, 120_000);
});

describe('what the API and the rewards quotes read', () => {
  it('answers GET /play/dev/leaderboard and the day board from the same index', async () => {
    const day = utcDay(new Date());
    const expected = await recount({ kind: 'day', gameId: game.id, day });
    expect(await dayBoard.count(game.id, day)).toBe(expected.length);
    expect(await dayBoard.top(game.id, day, 10)).toEqual(expected.slice(0, 10));
    const last = expected[expected.length - 1] as Standing;
    const res = await devLeaderboard(auth(), game.id, {
      period: 'daily',
      limit: 20,
      offset: 100,
      player: last.arcId,
    });
    // Each entry also carries the player's identifier and display name (labels: player-boards.test.ts).
    expect(res.entries.map(({ rank, arcId, points }) => ({ rank, arcId, points }))).toEqual(
      expected.slice(100, 120).map((s, i) => ({ rank: 101 + i, arcId: s.arcId, points: s.points })),
    );
    expect(res.player).toMatchObject({ rank: expected.length, points: last.points });
  }, 60_000);
});

describe('whether a day board has players, and the index of games with activity (the settlement schedule)', () => {
  it('answers no for a board never played and for one whose every player was invalidated, yes otherwise', async () => {
    const { hasPlayers } = dayBoard;
    const g = await registerGame(dev);
    const day = utcDay(new Date());
    expect(await hasPlayers(g.id, day)).toBe(false);
    expect(await gamesActiveOn(day)).not.toContain(g.id);
    const player = `sol:${bs58.encode(randomBytes(32))}`;
    await batchSavePoints(
      auth(),
      { gameId: g.id, entries: [{ playerId: player, points: 5, sessionId: 'only' }] },
      deps,
    );
    expect(await hasPlayers(g.id, day)).toBe(true);
    // The board's first score put the game in the index of the day's activity.
    expect(await gamesActiveOn(day)).toContain(g.id);
    await invalidateSessions(auth(), { gameId: g.id, sessionIds: ['only'] });
    // The board keeps its height (never lowered) but nobody has points on it.
    expect(await hasPlayers(g.id, day)).toBe(false);
  });
});

/** Counts the COUNT queries of the index made while `run` runs (the rank read's extra wave). */
const countQueries = async <T>(run: () => Promise<T>) => {
  let counts = 0;
  const name = `countQueries-${Math.random()}`;
  dynamo().middlewareStack.add(
    (next) => async (args) => {
      if ((args.input as { Select?: string }).Select === 'COUNT') counts++;
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    return { result: await run(), counts };
  } finally {
    dynamo().middlewareStack.remove(name);
  }
};

describe('ties reached over many minutes', () => {
  it('ranks every tied player exactly after moves and invalidations, counting a tie group past a page with COUNT', async () => {
    const g = await registerGame(dev);
    const day = '2026-03-10';
    const start = Date.parse(`${day}T00:00:00.000Z`);
    const wallets: string[] = [];
    const ids: string[] = [];
    // Batches of players reaching 7 points at minutes across both levels of the day's tree (a minute twice, and
    // the day's last minute), each batch one instant: ~2 players of a minute per index shard.
    const at = [3, 4, 4, 63, 64, 65, 130, 700, 1_439].map((m, i) => start + m * 60_000 + i * 1_000);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      for (const [i, time] of at.entries()) {
        vi.setSystemTime(time);
        const part = Array.from({ length: 30 }, () => `sol:${bs58.encode(randomBytes(32))}`);
        const res = await batchSavePoints(
          auth(),
          {
            gameId: g.id,
            entries: part.map((playerId, j) => ({ playerId, points: 7, sessionId: `s${i}-${j}` })),
          },
          deps,
        );
        wallets.push(...part);
        ids.push(...part.map((w) => res.playerIdToArcId[w] as string));
      }
      // At minute 800, 23 of them move up to 10 and 10 of those are invalidated back to 7: they rejoin the tie
      // keeping the minute they reached 10 in (800), the others leave it.
      vi.setSystemTime(start + 800 * 60_000);
      const movers = wallets.filter((_, i) => i % 12 === 0);
      await batchSavePoints(
        auth(),
        {
          gameId: g.id,
          entries: movers.map((playerId, i) => ({
            playerId,
            points: 3,
            sessionId: `${i < 10 ? 'back' : 'up'}-${i}`,
          })),
        },
        deps,
      );
      await invalidateSessions(auth(), {
        gameId: g.id,
        sessionIds: Array.from({ length: 10 }, (_, i) => `back-${i}`),
      });
    } finally {
      vi.useRealTimers();
    }
    for (const board of [
      { kind: 'day', gameId: g.id, day },
      { kind: 'all', gameId: g.id },
    ] as BoardRef[]) {
      const keys = ids.map((arcId) =>
        board.kind === 'day' ? playKeys.day(g.id, arcId, day) : playKeys.allTime(g.id, arcId),
      );
      const items = await getItems(keys);
      const expected = ids
        .map((arcId, i) => {
          const item = items.get(itemKey(keys[i] as { pk: string; sk: string }));
          return { arcId, points: Number(item?.points), reachedAt: String(item?.reachedAt) };
        })
        .sort(byRank);
      expect(expected.filter((s) => s.points === 7)).toHaveLength(ids.length - 13);
      // A board of 270 is one shard wide. The first read of a player with 10 or more tied ahead of it (the
      // last of each group: 12 and 256) counts them with one COUNT over the tie group, and records the score.
      expect((await readMeta(board)).recorded).toBe(1);
      const groups = [...new Set(expected.map((s) => s.points))].map(
        (p) => expected.filter((s) => s.points === p).length,
      );
      expect(groups).toEqual([13, 257]);
      expect((await readMeta(board)).ties.size).toBe(0);
      for (const points of [10, 7]) {
        const last = expected.filter((s) => s.points === points).at(-1) as Standing;
        const first = await countQueries(() => playerRank(board, last.arcId));
        expect(first.counts).toBe(1);
        expect(first.result?.rank).toBe(expected.indexOf(last) + 1);
      }
      expect([...(await readMeta(board)).ties].sort((a, b) => a - b)).toEqual([7, 10]);
      // Every later read at those scores counts the ties ahead of it with one COUNT per shard in its first wave,
      // and reads only its two neighbours before it.
      const { result, counts } = await countQueries(() =>
        Promise.all(expected.map((s) => playerRank(board, s.arcId))),
      );
      expect(counts).toBe(expected.length);
      result.forEach((answer, i) => {
        expect(answer?.rank).toBe(i + 1);
        expect(answer?.neighbours.map((x) => x.arcId)).toEqual(
          expected.slice(Math.max(0, i - 2), i + 3).flatMap((x) => (x === expected[i] ? [] : [x.arcId])),
        );
      });
    }
  }, 120_000);
});

describe('the large tie groups a board records', () => {
  it('stops at 64 scores: a read past a page of a group then counts it every time, exactly', async () => {
    const g = await registerGame(dev);
    const board: BoardRef = { kind: 'day', gameId: g.id, day: utcDay(new Date()) };
    const part = Array.from({ length: 14 }, () => `sol:${bs58.encode(randomBytes(32))}`);
    const res = await batchSavePoints(
      auth(),
      { gameId: g.id, entries: part.map((playerId, j) => ({ playerId, points: 5, sessionId: `f${j}` })) },
      deps,
    );
    const full = new Set(Array.from({ length: 64 }, (_, i) => 1_000 + i));
    await dynamo().send(
      new UpdateCommand({
        TableName: playTable(),
        Key: metaKey(board),
        UpdateExpression: 'ADD ties :t',
        ExpressionAttributeValues: { ':t': full },
      }),
    );
    const ranks = [];
    for (let i = 0; i < 2; i++) {
      const ranked = await Promise.all(part.map((w) => playerRank(board, res.playerIdToArcId[w] as string)));
      ranks.push(ranked.map((r) => r?.rank).sort((a, b) => Number(a) - Number(b)));
    }
    // 14 tied in one shard: the players with 10 or more ahead (4 of them) count them, both times.
    expect(ranks).toEqual([
      Array.from({ length: 14 }, (_, i) => i + 1),
      Array.from({ length: 14 }, (_, i) => i + 1),
    ]);
    expect((await readMeta(board)).ties).toEqual(full);
    const { counts } = await countQueries(() =>
      Promise.all(part.map((w) => playerRank(board, res.playerIdToArcId[w] as string))),
    );
    expect(counts).toBe(4);
  });
});

describe('a tie group of 2,000 at one score, saved while the board widens', () => {
  it('ranks every player of it exactly, across the shards of every width the board had', async () => {
    const g = await registerGame(dev);
    const board: BoardRef = { kind: 'day', gameId: g.id, day: utcDay(new Date()) };
    // The estimate of players who entered the board, set as if that many had: the next entries widen it.
    const estimate = (players: number) =>
      dynamo().send(
        new UpdateCommand({
          TableName: playTable(),
          Key: metaKey(board),
          UpdateExpression: 'SET players = :n',
          ExpressionAttributeValues: { ':n': players },
        }),
      );
    const ids: string[] = [];
    const wallets: string[] = [];
    const widths: number[] = [];
    for (let b = 0; b < 20; b++) {
      // After 500 players, as if 5,000 had entered: the next batch records width 2. After 1,000, as if 20,000
      // had: the next records 8. Each batch's entries go to the width its plan read.
      if (b === 5) await estimate(5_000);
      if (b === 10) await estimate(20_000);
      const part = Array.from({ length: 100 }, () => `sol:${bs58.encode(randomBytes(32))}`);
      const res = await batchSavePoints(
        auth(),
        {
          gameId: g.id,
          entries: part.map((playerId, j) => ({ playerId, points: 5, sessionId: `b${b}-${j}` })),
        },
        deps,
      );
      wallets.push(...part);
      ids.push(...part.map((w) => res.playerIdToArcId[w] as string));
      widths.push((await readMeta(board)).recorded);
    }
    expect(widths.slice(0, 5)).toEqual([1, 1, 1, 1, 1]);
    expect(widths[5]).toBe(2);
    expect(widths[10]).toBe(8);
    // 40 players (one in 50, from every width) move up and 20 come back (invalidated): they rejoin the tie last, in shards of 8.
    const movers = wallets.filter((_, i) => i % 50 === 0);
    await batchSavePoints(
      auth(),
      {
        gameId: g.id,
        entries: movers.map((playerId, i) => ({
          playerId,
          points: 2,
          sessionId: `${i % 2 ? 'up' : 'back'}-${i}`,
        })),
      },
      deps,
    );
    await invalidateSessions(auth(), {
      gameId: g.id,
      sessionIds: movers.flatMap((_, i) => (i % 2 ? [] : [`back-${i}`])),
    });
    const items = await getItems(ids.map((arcId) => playKeys.day(g.id, arcId, board.day)));
    const expected = ids
      .map((arcId) => {
        const item = items.get(itemKey(playKeys.day(g.id, arcId, board.day)));
        return {
          arcId,
          points: Number(item?.points),
          reachedAt: String(item?.reachedAt),
          partition: String(item?.rankDay),
        };
      })
      .sort(byRank);
    expect(expected.filter((s) => s.points === 5)).toHaveLength(1_980);
    // The tie group lies in the shards of widths 1, 2 and 8 (the movers now in the width-8 ones).
    expect(new Set(expected.map((s) => s.partition)).size).toBe(8);
    expect(await boardSize(board)).toBe(2_000);
    // Every 13th, the 20 above the tie group, and its last 50 (the movers who came back among them).
    const probes = expected.flatMap((s, i) => (i % 13 === 0 || s.points !== 5 || i >= 1_950 ? [i] : []));
    const answers = await Promise.all(probes.map((i) => playerRank(board, (expected[i] as Standing).arcId)));
    answers.forEach((answer, n) => {
      const i = probes[n] as number;
      expect(answer?.rank).toBe(i + 1);
      expect(answer?.neighbours.map((x) => x.arcId)).toEqual(
        expected.slice(Math.max(0, i - 2), i + 3).flatMap((x) => (x === expected[i] ? [] : [x.arcId])),
      );
    });
    const plain = expected.map(({ partition: _, ...s }) => s);
    for (const offset of [0, 90, 1_000, 1_990])
      expect(await pageOf(board, offset, 50)).toEqual(plain.slice(offset, offset + 50));
  }, 300_000);
});
