// Leaderboard reads at 10k, 100k and 1M players: a player's rank (the lowest player's, the worst case of the
// old path), the top 10 and a deep page, through the rank index (lib/play/ranks/reads.ts) beside the old path
// (bench/lib/old-leaderboard.ts: COUNT pages over a points-sorted index), in one run, as ratios.
//   npx tsx bench/leaderboard.ts [--sizes 10000,100000,1000000] [--runs 5] [--old-runs 3]
// --old-runs 0 leaves the old path out (no old index, faster seeding: the old rank read at 1M is ~10× 100k's);
// --old-max N runs it only on boards of at most N players (the larger ones stay out of its index).
// Starts DynamoDB Local (no serverless offline) and seeds each board straight into the play table with
// parallel BatchWriteItem: the totals as the save path writes them (rank attributes, and `boardDay` for the old
// index, created here) and the score tree's counters summed in memory, at the width the board grows to with its
// players, and its meta item. Every DynamoDB command is counted
// (requests, and waves: requests that start after every earlier one has answered, i.e. sequential round trips).
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { startStack } from '../scripts/stack/index.js';
import { oldAround, oldTop } from './lib/old-leaderboard.js';
import { formatMs, formatNumber, formatRatio, renderTable } from './lib/table.js';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000,1000000' },
    runs: { type: 'string', default: '5' },
    'old-runs': { type: 'string', default: '3' },
    'old-max': { type: 'string', default: String(Number.MAX_SAFE_INTEGER) },
  },
});
const SIZES = String(args.sizes).split(',').map(Number);
const RUNS = Number(args.runs);
const OLD_RUNS = Number(args['old-runs']);
const OLD_MAX = Number(args['old-max']);
/** Whether the old path runs on a board of n players. */
const withOld = (n: number) => OLD_RUNS > 0 && n <= OLD_MAX;
const DAY = '2026-01-15';

const stack = await startStack({
  offline: false,
  log: { info: () => {}, warn: () => {}, error: console.error, debug: () => {} },
});
// No API runs here: PUBLIC_API_URL only has to satisfy the settings.
Object.assign(process.env, stack.functionEnv, stack.env, {
  POWERTOOLS_LOG_LEVEL: 'SILENT',
  PUBLIC_API_URL: 'http://127.0.0.1',
});

try {
  const { BatchWriteCommand } = await import('@aws-sdk/lib-dynamodb');
  const { UpdateTableCommand, DescribeTableCommand } = await import('@aws-sdk/client-dynamodb');
  const { dynamo } = await import('../lib/adapters/dynamodb.js');
  const { getItem, playKeys, playerRank, playTable, rankIndex, rankReads } = await import(
    '../lib/play/index.js'
  );
  const table = playTable();

  // The old points-sorted index, as serverless.yml had it.
  if (OLD_RUNS > 0)
    await dynamo().send(
      new UpdateTableCommand({
        TableName: table,
        AttributeDefinitions: [
          { AttributeName: 'boardDay', AttributeType: 'S' },
          { AttributeName: 'points', AttributeType: 'N' },
        ],
        GlobalSecondaryIndexUpdates: [
          {
            Create: {
              IndexName: 'byDailyBoard',
              KeySchema: [
                { AttributeName: 'boardDay', KeyType: 'HASH' },
                { AttributeName: 'points', KeyType: 'RANGE' },
              ],
              Projection: { ProjectionType: 'ALL' },
            },
          },
        ],
      }),
    );
  for (let i = 0; i < 100; i++) {
    const { Table } = await dynamo().send(new DescribeTableCommand({ TableName: table }));
    if (Table?.GlobalSecondaryIndexes?.every((g) => g.IndexStatus === 'ACTIVE')) break;
    await new Promise((r) => setTimeout(r, 200));
  }

  let calls: Array<{ start: number; end: number }> = [];
  dynamo().middlewareStack.add(
    (next) => async (args) => {
      const call = { start: performance.now(), end: Number.POSITIVE_INFINITY };
      calls.push(call);
      try {
        return await next(args);
      } finally {
        call.end = performance.now();
      }
    },
    { step: 'initialize', name: 'countRoundTrips' },
  );
  const waves = () => {
    let count = 0;
    let lastEnd = Number.NEGATIVE_INFINITY;
    for (const c of [...calls].sort((a, b) => a.start - b.start)) {
      if (c.start >= lastEnd) count++;
      lastEnd = c.start >= lastEnd ? c.end : Math.max(lastEnd, c.end);
    }
    return count;
  };

  const write = async (items: Array<Record<string, unknown>>) => {
    const chunks = Array.from({ length: Math.ceil(items.length / 25) }, (_, i) =>
      items.slice(i * 25, i * 25 + 25),
    );
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < chunks.length) {
          let request: Record<string, unknown[]> | undefined = {
            [table]: (chunks[next++] ?? []).map((Item) => ({ PutRequest: { Item } })),
          };
          while (request && Object.keys(request).length > 0) {
            const out = await dynamo().send(new BatchWriteCommand({ RequestItems: request as never }));
            request = out.UnprocessedItems as typeof request;
          }
        }
      }),
    );
  };

  /** A board of n players: points 1…1,000,000 (skewed low, few ties), reached over the day. */
  const seed = async (n: number) => {
    const gameId = randomUUID();
    const board = { kind: 'day' as const, gameId, day: DAY };
    const counters = new Map<string, { key: { pk: string; sk: string }; digits: Map<number, number> }>();
    const players: Array<{ arcId: string; points: number; reachedAt: string; shard: number }> = [];
    // The width the board grows to with n players (its writes would have widened it on the way).
    const width = rankIndex.widthFor(n);
    for (let i = 0; i < n; i++) {
      const arcId = randomUUID();
      const points = 1 + Math.floor(Math.random() ** 2 * 1_000_000);
      const reachedAt = new Date(Date.parse(`${DAY}T00:00:00.000Z`) + Math.floor(Math.random() * 86_400_000));
      const shard = rankIndex.shardOf(arcId, width);
      players.push({ arcId, points, reachedAt: reachedAt.toISOString(), shard });
      const moves = rankIndex
        .counterMoves(0, points)
        .map((m) => ({ ...m, key: rankIndex.counterKey(board, m, shard) }));
      for (const { key, digits } of moves) {
        const id = `${key.pk}|${key.sk}`;
        const entry = counters.get(id) ?? { key, digits: new Map() };
        for (const [d, delta] of digits) entry.digits.set(d, (entry.digits.get(d) ?? 0) + delta);
        counters.set(id, entry);
      }
    }
    const started = performance.now();
    await write(
      players.map((p) => ({
        ...playKeys.day(gameId, p.arcId, DAY),
        arcId: p.arcId,
        points: p.points,
        sessions: 1,
        reachedAt: p.reachedAt,
        updatedAt: p.reachedAt,
        ...(withOld(n) ? { boardDay: playKeys.boardDay(gameId, DAY) } : {}),
        ...rankIndex.boardAttributes(board, p, p.shard),
      })),
    );
    await write([
      ...[...counters.values()].map(({ key, digits }) => ({
        ...key,
        ...Object.fromEntries([...digits].map(([d, c]) => [`c${d}`, c])),
      })),
      // The board's meta item: the top levels its scores reached, its width, the players who entered it.
      {
        ...rankIndex.metaKey(board),
        levels: new Set(players.map((p) => rankIndex.topLevel(p.points))),
        widths: new Set([width]),
        players: n,
      },
    ]);
    const seconds = (performance.now() - started) / 1000;
    players.sort(rankIndex.byRank);
    console.log(
      `seeded ${formatNumber(n)} players + ${formatNumber(counters.size)} counter items in ${seconds.toFixed(0)} s`,
    );
    return { board, players, value: playKeys.boardDay(gameId, DAY) };
  };

  /** Median latency, requests and waves of `runs` runs of one read. */
  /** One timed run of a read: latency, requests and waves. */
  const once = async (read: () => Promise<unknown>) => {
    calls = [];
    const t = performance.now();
    await read();
    return { ms: performance.now() - t, requests: calls.length, depth: waves() };
  };
  const median = (times: number[]) =>
    [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)] as number;

  /** Median latency, requests and waves of `runs` runs of one read. */
  const measure = async (runs: number, read: () => Promise<unknown>) => {
    const out: Array<Awaited<ReturnType<typeof once>>> = [];
    for (let i = 0; i < runs; i++) out.push(await once(read));
    const last = out[out.length - 1];
    return { ms: median(out.map((o) => o.ms)), requests: last?.requests ?? 0, depth: last?.depth ?? 0 };
  };

  /**
   * The new path's reads interleaved (run 1 of every read, then run 2, …), so that the load of a shared machine
   * weighs on each read alike and the ratios to the top 10 compare reads made under the same load.
   */
  const measureInterleaved = async (runs: number, reads: Array<() => Promise<unknown>>) => {
    const out = reads.map(() => [] as Array<Awaited<ReturnType<typeof once>>>);
    for (let i = 0; i < runs; i++) for (const [j, read] of reads.entries()) out[j]?.push(await once(read));
    return out.map((o) => ({
      ms: median(o.map((x) => x.ms)),
      requests: o[o.length - 1]?.requests ?? 0,
      depth: o[o.length - 1]?.depth ?? 0,
    }));
  };

  const rows: Array<Array<string | number>> = [];
  for (const n of SIZES) {
    const { board, players, value } = await seed(n);
    const lowest = players[players.length - 1] as (typeof players)[number];
    // A player in the middle of the board: few or no ties (the lowest shares 1 point with ~0.1 % of the board).
    const middle = players[Math.floor(n / 2)] as (typeof players)[number];
    // A player in the middle of the lowest score's tie group: ties on both sides of it in every shard.
    const tieStart = players.findIndex((p) => p.points === lowest.points);
    const tied = players[Math.floor((tieStart + n - 1) / 2)] as (typeof players)[number];
    const deep = Math.min(10_000, n - 50);
    const reads: Array<[string, () => Promise<unknown>, () => Promise<unknown>]> = [
      ['top 10', () => oldTop(value, 10), () => rankReads.topOf(board, 10)],
      [
        'rank of the lowest player',
        async () => {
          await getItem(playKeys.day(board.gameId, lowest.arcId, DAY));
          return oldAround(value, lowest.arcId, lowest.points);
        },
        // As GET /play/dev/leaderboard?player= reads it: the player's total (and the board's height), then its
        // rank and neighbours.
        () => playerRank(board, lowest.arcId),
      ],
      ['rank of the middle player (new only)', async () => undefined, () => playerRank(board, middle.arcId)],
      [
        `rank in the middle of the ${formatNumber(n - tieStart)} tied at ${lowest.points} (new only)`,
        async () => undefined,
        () => playerRank(board, tied.arcId),
      ],
      [
        `page of 50 at offset ${formatNumber(deep)}`,
        () => oldTop(value, deep + 50),
        () => rankReads.pageOf(board, deep, 50),
      ],
      [
        `page of 50 at offset ${formatNumber(Math.floor(n / 2))} (new only)`,
        async () => undefined,
        () => rankReads.pageOf(board, Math.floor(n / 2), 50),
      ],
      ['board size (quotes)', async () => undefined, () => rankReads.boardSize(board)],
    ];
    // The first rank read in the lowest score's tie group: where more than a page of it is ahead of the player in
    // a shard, it counts the group in a third wave and records the score (`BoardMeta.ties`); the reads timed below
    // find it recorded and count the group in their first wave (lib/play/ranks/around.ts).
    const first = await once(() => playerRank(board, lowest.arcId));
    // The answers agree with the seeded order before anything is timed.
    const rankOf = async (p: (typeof players)[number]) => (await playerRank(board, p.arcId))?.rank;
    for (const p of [lowest, middle, tied]) {
      const expected = players.indexOf(p) + 1;
      const rank = await rankOf(p);
      if (rank !== expected) throw new Error(`rank ${rank}, expected ${expected}`);
    }
    const page = await rankReads.pageOf(board, Math.floor(n / 2), 50);
    if (page[0]?.arcId !== players[Math.floor(n / 2)]?.arcId) throw new Error('deep page starts elsewhere');
    const fresh = await measureInterleaved(
      RUNS,
      reads.map(([, , read]) => read),
    );
    const topMs = fresh[0]?.ms ?? 0;
    for (const [j, [name, old]] of reads.entries()) {
      const newer = fresh[j] as { ms: number; requests: number; depth: number };
      const older =
        !withOld(n) || name.includes('new only') || name.includes('size')
          ? undefined
          : await measure(OLD_RUNS, old);
      rows.push([
        formatNumber(n),
        name,
        older ? formatMs(older.ms) : '–',
        older ? `${older.requests} / ${older.depth}` : '–',
        formatMs(newer.ms),
        `${newer.requests} / ${newer.depth}`,
        older ? formatRatio(older.ms / newer.ms) : '–',
        formatRatio(newer.ms / topMs),
      ]);
      console.log(rows[rows.length - 1]?.join(' | '));
    }
    rows.push([
      formatNumber(n),
      'rank of the lowest player, first read (new only, once)',
      '–',
      '–',
      formatMs(first.ms),
      `${first.requests} / ${first.depth}`,
      '–',
      formatRatio(first.ms / topMs),
    ]);
    console.log(rows[rows.length - 1]?.join(' | '));
  }
  console.log(
    `\nMedians of ${RUNS} interleaved runs of the new reads (old path: ${OLD_RUNS} each); requests / waves (sequential round trips). DynamoDB Local.\n`,
  );
  console.log(
    renderTable(
      [
        'players',
        'read',
        'old',
        'old requests / waves',
        'new',
        'new requests / waves',
        'old ÷ new',
        'new ÷ new top 10',
      ],
      rows,
    ),
  );
} finally {
  await stack.stop();
}
