// What each main operation costs: DynamoDB read and write units (tables and indexes), DynamoDB requests, Lambda
// invocations, chain transactions and their fees, and the on-demand price per million operations at the rates of
// bench/rates.ts.  npm run bench -- cost
//
// Runs the functions' handlers in this process, with their real adapters, against the local stack (DynamoDB
// Local, the SQS stand-in, the local chain, the local identity provider), without serverless offline: the
// capacity counter (lib/adapters/capacity.ts, DYNAMODB_CAPACITY=count) lives in the process that makes the calls,
// and serverless offline runs handlers in processes of its own. API Gateway adds no DynamoDB call; it is priced
// per request. Units are what DynamoDB Local reports, except where it cannot be trusted: transactions (Local
// reports one item's units for all of them) and writes refused by a condition (no report), which the counter
// computes from item sizes with AWS's rules (lib/adapters/capacity.ts); the output says how many.
// Lambda duration is this machine's wall time of the handler at the function's memory size: an estimate.
import { randomBytes, randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import bs58 from 'bs58';
import { startStack } from '../scripts/stack/index.js';
import { measureSnapshotAndClaim } from './lib/cost-snapshots.js';
import { type OperationCost, studioBills, WIDEST } from './lib/studios.js';
import { renderTable } from './lib/table.js';
import { RATES } from './rates.js';

// The identity provider creates at most 240 users a minute (the local one as the real one): the board's new
// players are seeded within one minute, and the measured new players get a minute of their own.
const BOARD = Number(process.env.COST_BOARD_PLAYERS ?? 300);
const SETTLED_PLAYERS = Number(process.env.COST_SETTLED_PLAYERS ?? 50);
const SNAPSHOT_HOLDERS = Number(process.env.COST_SNAPSHOT_HOLDERS ?? 50);

const stack = await startStack({
  offline: false,
  log: { info: () => {}, warn: () => {}, error: console.error, debug: () => {} },
});
// No API runs here: PUBLIC_API_URL only has to satisfy the settings.
Object.assign(process.env, stack.functionEnv, stack.env, {
  POWERTOOLS_LOG_LEVEL: process.env.COST_LOG_LEVEL ?? 'SILENT',
  POWERTOOLS_METRICS_DISABLED: 'true',
  PUBLIC_API_URL: process.env.PUBLIC_API_URL ?? 'http://127.0.0.1',
  DYNAMODB_CAPACITY: 'count',
});

/** Chain transactions sent by the code under measure: every sendTransaction to the RPC node, and its signature. */
const sent: string[] = [];
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const response = await realFetch(input, init);
  const body = typeof init?.body === 'string' ? init.body : '';
  if (body.includes('"sendTransaction"')) {
    const answer = (await response.clone().json()) as { result?: string };
    if (answer.result) sent.push(answer.result);
  }
  return response;
};

interface Measured {
  name: string;
  /** How many operations the measured run made (100 players of a batch: the row is per player). */
  per: number;
  lambdas: number;
  /** Memory of the function(s) (MB), for the duration's GB-seconds. */
  memoryMb: number;
  apiRequests: number;
  sqsMessages: number;
  note: string;
}

try {
  const { readCapacity, resetCapacity } = await import('../lib/adapters/capacity.js');
  const { dynamo } = await import('../lib/adapters/dynamodb.js');
  const {
    rankIndex: { MAX_WIDTH, metaKey },
  } = await import('../lib/play/index.js');
  const { httpEvent } = await import('../tests/helpers/http.js');
  type Handler = (event: never, context: never) => Promise<unknown>;
  /**
   * A handler invoked in-process with an HTTP event, given 60 s (the functions' own timeout is what bounds them
   * on AWS; this machine is slower, and the bench counts, it does not time).
   */
  const invoke = async <T = unknown>(handler: Handler, input: Parameters<typeof httpEvent>[0]) => {
    const context = {
      awsRequestId: randomUUID(),
      functionName: 'cost',
      getRemainingTimeInMillis: () => 60_000,
    };
    const out = (await handler(httpEvent(input) as never, context as never)) as {
      statusCode?: number;
      body?: string;
    };
    const text = out.body ?? '';
    return { status: out.statusCode ?? 200, text, body: (text ? JSON.parse(text) : {}) as T };
  };
  const { createDeveloper, hmacHeaders } = await import('../tests/helpers/users.js');
  const { registerGame } = await import('../tests/helpers/games.js');
  const { inProcessPlayClient } = await import('../tests/helpers/play.js');
  const { idpToken } = await import('../tests/helpers/idp.js');
  const { seedDay, randomDay, chain, SOL } = await import('../tests/helpers/settlement.js');
  const { ensureUserForSubject, loadWallet } = await import('../lib/user/index.js');
  const { settleGameDay } = await import('../lib/rewards/index.js');
  const { sideEffects: settleDeps } = await import('../functions/settlement/settle-game-days.js');
  const handlers = {
    save: (await import('../functions/play-developer/batch-save-points.js')).handler,
    board: (await import('../functions/play-developer/get-dev-leaderboard.js')).handler,
    list: (await import('../functions/games/list-games.js')).handler,
    purchase: (await import('../functions/rewards/purchase-multiplier.js')).handler,
  };

  const fees = async (signatures: string[]) => {
    let lamports = 0;
    for (const signature of signatures) {
      const res = await realFetch(process.env.SOLANA_RPC_URL ?? '', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'getTransaction',
          params: [
            signature,
            { encoding: 'json', commitment: 'confirmed', maxSupportedTransactionVersion: 0 },
          ],
        }),
      });
      const answer = (await res.json()) as { result?: { meta?: { fee?: number } } };
      lamports += answer.result?.meta?.fee ?? RATES.solana.lamportsPerSignature;
    }
    return lamports;
  };

  /** Rank-index writes (items keyed RANK#…, the counters of the score and tie trees) of the measured run. */
  let rankItemWrites = 0;
  /** The game's day figures' writes (items keyed INSIGHTS#…) of the measured run, and their share per row. */
  let insightsItemWrites = 0;
  const insightsRows: Array<Array<string | number>> = [];
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as {
        TransactItems?: Array<Record<string, { Key?: { pk?: string }; Item?: { pk?: string } }>>;
      };
      if (String(context.commandName).startsWith('TransactWrite'))
        for (const t of input.TransactItems ?? []) {
          const w = Object.values(t)[0];
          const pk = String(w?.Key?.pk ?? w?.Item?.pk ?? '');
          if (pk.startsWith('RANK#')) rankItemWrites += 2;
          // A game's day figures (lib/insights): one small item per transaction and day, 2 units.
          if (pk.startsWith('INSIGHTS#')) insightsItemWrites += 2;
        }
      return next(args);
    },
    { step: 'initialize', name: 'countRankWrites' },
  );

  /** Per operation, in dollars: the AWS side, its DynamoDB part and of that the rank index's writes. */
  const results = new Map<string, OperationCost>();
  const rows: Array<Array<string | number>> = [];
  const fmt = (n: number) => (n === 0 ? '0' : n >= 100 ? n.toFixed(0) : n >= 1 ? n.toFixed(2) : n.toFixed(3));
  const usd = (n: number) =>
    n >= 100 ? `$${n.toFixed(0)}` : n >= 1 ? `$${n.toFixed(2)}` : `$${n.toFixed(3)}`;
  let computedRequests = 0;

  const measure = async (m: Measured, run: () => Promise<unknown>) => {
    resetCapacity();
    rankItemWrites = 0;
    insightsItemWrites = 0;
    sent.length = 0;
    const started = performance.now();
    await run();
    const ms = performance.now() - started;
    const c = readCapacity();
    // A re-broadcast of a transaction not yet confirmed is the same transaction.
    const signatures = [...new Set(sent)];
    const lamports = await fees(signatures);
    computedRequests += c.computed.requests;
    const sum = (pick: (key: string) => boolean, kind: 'read' | 'write') =>
      Object.entries(c.units)
        .filter(([key]) => pick(key))
        .reduce((s, [, u]) => s + u[kind], 0) / m.per;
    const isIndex = (key: string) => key.includes('/');
    const read = { table: sum((k) => !isIndex(k), 'read'), index: sum(isIndex, 'read') };
    const write = { table: sum((k) => !isIndex(k), 'write'), index: sum(isIndex, 'write') };
    const dynamoUsd =
      (read.table + read.index) * RATES.dynamodb.perReadRequestUnit +
      (write.table + write.index) * RATES.dynamodb.perWriteRequestUnit;
    const lambdaUsd =
      (m.lambdas / m.per) * RATES.lambda.perRequest +
      ((ms / 1000) * (m.memoryMb / 1024) * RATES.lambda.perArmGbSecond) / m.per;
    const otherUsd =
      (m.apiRequests / m.per) * RATES.apiGateway.perHttpRequest +
      ((m.sqsMessages * 3) / m.per) * RATES.sqs.perRequest;
    const feeUsd = (lamports / m.per / 1e9) * RATES.solana.assumedSolUsd;
    const perMillion = (x: number) => x * 1e6;
    // Counter items are under 1 KB and written only in transactions: 2 units each.
    const rankWrites = rankItemWrites / m.per;
    results.set(m.name, {
      aws: dynamoUsd + lambdaUsd + otherUsd,
      dynamo: dynamoUsd,
      rankIndex: rankWrites * RATES.dynamodb.perWriteRequestUnit,
    });
    rows.push([
      m.name,
      `${fmt(read.table)} / ${fmt(read.index)}`,
      `${fmt(write.table)} / ${fmt(write.index)}`,
      fmt(rankWrites),
      fmt(c.requests / m.per),
      fmt(m.lambdas / m.per),
      `${fmt(signatures.length / m.per)} / ${fmt(lamports / m.per)}`,
      usd(perMillion(dynamoUsd)),
      usd(perMillion(lambdaUsd + otherUsd)),
      usd(perMillion(dynamoUsd + lambdaUsd + otherUsd)),
      usd(perMillion(feeUsd)),
      m.note,
    ]);
    console.log(rows[rows.length - 1]?.join(' | '));
    if (insightsItemWrites > 0 && write.table > 0) {
      const figures = insightsItemWrites / m.per;
      insightsRows.push([
        m.name,
        fmt(write.table + write.index),
        fmt(figures),
        `${((100 * figures) / (write.table + write.index - figures)).toFixed(1)} %`,
      ]);
    }
  };

  // A developer, a game, and a board of BOARD players (saved 100 at a time, as a game server does).
  const dev = await createDeveloper();
  const game = await registerGame(dev);
  const newIds = () => Array.from({ length: 100 }, () => `sol:${bs58.encode(randomBytes(32))}`);
  let skew = 0;
  const save = async (
    playerIds: string[],
    points: (i: number) => number,
    retries = 0,
    gameId = game.id,
  ): Promise<Record<string, string>> => {
    skew += 1_100; // a fresh HMAC timestamp each time; the route allows 3 a second per key
    const res = await invoke<{ data: { playerIdToArcId: Record<string, string> } }>(handlers.save, {
      method: 'POST',
      path: '/play/dev/batch-save-points',
      headers: hmacHeaders(dev, 'POST', '/play/dev/batch-save-points', { timestamp: Date.now() - skew }),
      body: { gameId, entries: playerIds.map((playerId, i) => ({ playerId, points: points(i) })) },
    });
    if (res.status === 429 && retries > 0) {
      await new Promise((r) => setTimeout(r, 61_000));
      return save(playerIds, points, retries - 1, gameId);
    }
    if (res.status !== 200) throw new Error(`batch save answered ${res.status}: ${res.text}`);
    return res.body.data.playerIdToArcId;
  };
  const arcIds: string[] = [];
  for (let b = 0; b < BOARD / 100 - 1; b++) {
    const ids = newIds();
    arcIds.push(...Object.values(await save(ids, (i) => 1 + (((b * 100 + i) * 7919) % 100_000), 3)));
  }
  await new Promise((r) => setTimeout(r, 61_000));
  const batch = newIds();
  const saveRow = { per: 100, lambdas: 1, memoryMb: 512, apiRequests: 1, sqsMessages: 0 };
  await measure(
    {
      ...saveRow,
      name: 'batch save, per player (new player)',
      note: `1 of a batch of 100 never-seen players, board of ${BOARD}`,
    },
    () => save(batch, (i) => 50_000 + i),
  );
  await measure(
    {
      ...saveRow,
      name: 'batch save, per player (known player)',
      note: 'the same 100 again, each with a new score',
    },
    () => save(batch, (i) => 60_000 + i * 3),
  );

  // One known player saving alone (a batch of one, a new session of its own, small points under every cap): the
  // transaction carries its writes alone, nothing is shared with other players.
  await new Promise((r) => setTimeout(r, 1_100));
  await measure(
    {
      ...saveRow,
      per: 1,
      name: 'batch save, one known player alone',
      note: 'one of the same 100, alone in its batch, into a new session',
    },
    async () => {
      skew += 1_100;
      const res = await invoke(handlers.save, {
        method: 'POST',
        path: '/play/dev/batch-save-points',
        headers: hmacHeaders(dev, 'POST', '/play/dev/batch-save-points', { timestamp: Date.now() - skew }),
        body: {
          gameId: game.id,
          entries: [{ playerId: batch[0], points: 10, sessionId: `alone-${randomUUID()}` }],
        },
      });
      if (res.status !== 200) throw new Error(`batch save answered ${res.status}: ${res.text}`);
    },
  );

  // What tournament scoring adds to a save: on a game of its own, the same 100 players saving into one session
  // each (small points, under every cap), measured before and after they enter one running tournament (an open
  // one: their first save in it enters them). Both runs add to existing totals, sessions and board entries.
  const { createTournament } = await import('../lib/tournaments/index.js');
  const scoring = await registerGame(dev);
  const inSession = (points: number) => async () => {
    skew += 1_100;
    const res = await invoke(handlers.save, {
      method: 'POST',
      path: '/play/dev/batch-save-points',
      headers: hmacHeaders(dev, 'POST', '/play/dev/batch-save-points', { timestamp: Date.now() - skew }),
      body: {
        gameId: scoring.id,
        entries: batch.map((playerId, i) => ({ playerId, points: points + i, sessionId: `cost-${i}` })),
      },
    });
    if (res.status !== 200) throw new Error(`batch save answered ${res.status}: ${res.text}`);
  };
  await inSession(100)();
  const outside = 'batch save, per player (known player, same session)';
  await measure(
    { ...saveRow, name: outside, note: 'the 100 again, into their open session' },
    inSession(200),
  );
  const opened = new Date(Math.floor(Date.now() / 1000) * 1000);
  const second = (d: Date) => `${d.toISOString().slice(0, 19)}Z`;
  await createTournament({ scheme: 'hmac', userId: dev.arcId }, scoring.id, {
    title: 'cost',
    startsAt: second(opened),
    endsAt: second(new Date(opened.getTime() + 3_600_000)),
  });
  await inSession(300)();
  const inside = 'batch save, per player (known player, same session, in one tournament)';
  await measure(
    { ...saveRow, name: inside, note: 'the same, each entered in one running tournament' },
    inSession(400),
  );
  const plain = results.get(outside);
  const scored = results.get(inside);
  if (plain && scored)
    console.log(
      `tournament scoring: ${(scored.dynamo / plain.dynamo).toFixed(2)}× the DynamoDB cost of the same save ` +
        `outside any tournament, ${(scored.aws / plain.aws).toFixed(2)}× its AWS cost (target ≤ 1.25×)`,
    );

  // The same players on a game whose boards are at their widest (MAX_WIDTH shards, as past 80,000 players): each
  // player's counters in the copy of its own shard, so fewer of a batch's counter ADDs merge. The studios' bills
  // use these rows (a studio at 100 updates a second has boards of tens of thousands).
  const wide = await registerGame(dev);
  const day = new Date().toISOString().slice(0, 10);
  for (const board of [
    { kind: 'day' as const, gameId: wide.id, day },
    { kind: 'all' as const, gameId: wide.id },
  ])
    await dynamo().send(
      new UpdateCommand({
        TableName: process.env.PLAY_TABLE ?? '',
        Key: metaKey(board),
        UpdateExpression: 'ADD widths :w',
        ExpressionAttributeValues: { ':w': new Set([MAX_WIDTH]) },
      }),
    );
  await new Promise((r) => setTimeout(r, 1_100));
  await save(batch, (i) => 50_000 + i, 0, wide.id);
  await new Promise((r) => setTimeout(r, 1_100));
  await measure(
    {
      ...saveRow,
      name: WIDEST.knownSave,
      note: `the same 100, known, on a game whose boards are ${MAX_WIDTH} shards wide`,
    },
    () => save(batch, (i) => 60_000 + i * 3, 0, wide.id),
  );

  // The client SDK: a session, a flush, a commit (one player's own calls; unpaced here, the waits are ours).
  const player = `cost-${randomUUID().slice(0, 8)}`;
  const client = inProcessPlayClient({ pace: false });
  await client.start(game.id, await idpToken(player));
  await new Promise((r) => setTimeout(r, 1_100));
  const sdkRow = { per: 1, lambdas: 1, memoryMb: 512, apiRequests: 1, sqsMessages: 0 };
  await measure({ ...sdkRow, name: 'SDK flush', note: 'one flush of a running session' }, () =>
    client.flush(25),
  );
  await new Promise((r) => setTimeout(r, 5_100));
  await measure({ ...sdkRow, name: 'SDK commit', note: 'commits the flushed points to the boards' }, () =>
    client.commit(),
  );

  // COST_ONLY=plays stops after the saves and the SDK's calls (the rows the write paths change).
  if (process.env.COST_ONLY !== 'plays') {
    // Reads of the game's daily board.
    const board = (query: Record<string, string>) => async () => {
      const res = await invoke(handlers.board, {
        method: 'GET',
        path: `/play/dev/leaderboard/${game.id}`,
        pathParameters: { gameId: game.id },
        headers: hmacHeaders(dev, 'GET', `/play/dev/leaderboard/${game.id}`),
        query,
      });
      if (res.status !== 200) throw new Error(`leaderboard answered ${res.status}: ${res.text}`);
    };
    const readRow = { per: 1, lambdas: 1, memoryMb: 512, apiRequests: 1, sqsMessages: 0 };
    await measure({ ...readRow, name: 'top 10', note: `daily board of ${BOARD}` }, board({ limit: '10' }));
    await measure(
      { ...readRow, name: "a player's rank with neighbours", note: 'top 10 + the player, mid-board' },
      board({ limit: '10', player: arcIds[Math.floor(arcIds.length / 2)] ?? '' }),
    );
    await measure(
      { ...readRow, name: 'a page deep in the board', note: `50 at offset ${BOARD - 100} of ${BOARD}` },
      board({ limit: '50', offset: String(BOARD - 100) }),
    );
    await new Promise((r) => setTimeout(r, 1_100));
    const widePlayer = Object.values(await save(batch, (i) => 70_000 + i, 0, wide.id))[50] ?? '';
    const wideBoard = (query: Record<string, string>) => async () => {
      const res = await invoke(handlers.board, {
        method: 'GET',
        path: `/play/dev/leaderboard/${wide.id}`,
        pathParameters: { gameId: wide.id },
        headers: hmacHeaders(dev, 'GET', `/play/dev/leaderboard/${wide.id}`),
        query,
      });
      if (res.status !== 200) throw new Error(`leaderboard answered ${res.status}: ${res.text}`);
    };
    await measure(
      { ...readRow, name: WIDEST.top, note: `the same, ${MAX_WIDTH} shards wide` },
      wideBoard({ limit: '10' }),
    );
    await measure(
      { ...readRow, name: WIDEST.rank, note: `the same, ${MAX_WIDTH} shards wide` },
      wideBoard({ limit: '10', player: widePlayer }),
    );
    await measure({ ...readRow, name: 'game listing page', note: 'GET /games, first page' }, async () => {
      const res = await invoke(handlers.list, { method: 'GET', path: '/games' });
      if (res.status !== 200) throw new Error(`listing answered ${res.status}`);
    });

    // A multiplier purchase, paid from the buyer's embedded wallet on the local chain.
    const buyerName = `cost-buyer-${randomUUID().slice(0, 8)}`;
    const buyerArcId = await ensureUserForSubject(`did:local:${buyerName}`);
    const buyerWallet = (await loadWallet(buyerArcId))?.address ?? '';
    await chain.airdrop(buyerWallet, SOL);
    const buyerToken = await idpToken(buyerName);
    await measure(
      {
        ...readRow,
        name: 'multiplier purchase',
        note: '2x for 1 h, from an embedded wallet (delegated signing)',
      },
      async () => {
        const res = await invoke(handlers.purchase, {
          method: 'POST',
          path: '/multiplier/purchase',
          headers: { authorization: `Bearer ${buyerToken}` },
          body: { gameId: game.id, tier: '2x', durationSeconds: 3_600, idempotencyKey: randomUUID() },
        });
        if (res.status !== 200 && res.status !== 201)
          throw new Error(`purchase answered ${res.status}: ${res.text}`);
      },
    );

    // The settlement of one game-day of SETTLED_PLAYERS players: the queue consumer (one message; the hourly
    // scheduler's invocation is shared by every game and left out).
    const seeded = await seedDay({ day: randomDay(), playerCount: SETTLED_PLAYERS });
    await measure(
      {
        per: SETTLED_PLAYERS,
        lambdas: 1,
        memoryMb: 1024,
        apiRequests: 0,
        sqsMessages: 1,
        name: 'settlement, per player of the day',
        note: `a day of ${SETTLED_PLAYERS} players, the top ones paid`,
      },
      async () => {
        // The queue consumer's work, with the clock just after the day's settlement delay (the seeded day is in
        // the past, before the game existed, which the real clock would not settle).
        const outcome = await settleGameDay(seeded.gameId, seeded.day, {
          ...settleDeps,
          now: () => seeded.after,
        });
        if (outcome.status !== 'settled' || outcome.replayed) throw new Error(`settlement ${outcome.status}`);
      },
    );

    // A snapshot build and a claim, on a launched coin (their failure leaves the rest of the table standing).
    await measureSnapshotAndClaim(measure, invoke, SNAPSHOT_HOLDERS).catch((error: unknown) =>
      console.error(`snapshot and claim not measured: ${String(error)}`),
    );
  }

  console.log(
    `\nPer operation, at ${RATES.region} on-demand rates of ${RATES.asOf} (bench/rates.ts). Units: DynamoDB ` +
      `Local's report, except ${computedRequests} requests (its transactions, which it misreports, and writes ` +
      "refused by a condition, which it does not report) computed from item sizes with AWS's rules. Rank index: " +
      "its counter items (RANK#…), 2 units each. Lambda duration: this machine's wall time at the " +
      `function's memory. Fees at SOL = $${RATES.solana.assumedSolUsd}. Figures are for the current rank index.\n`,
  );
  console.log(
    renderTable(
      [
        'operation',
        'read units (table / index)',
        'write units (table / index)',
        'of which rank index',
        'DynamoDB requests',
        'Lambda invocations',
        'chain txs / fee (lamports)',
        'DynamoDB $ per million',
        'Lambda + API + SQS $ per million',
        'AWS $ per million',
        'chain fees $ per million',
        'run',
      ],
      rows,
    ),
  );
  if (process.env.COST_ONLY !== 'plays') console.log(studioBills(results));
  console.log(
    '\nWhat the day figures (lib/insights, items INSIGHTS#…, 2 units each) add to the rows that write them:\n',
  );
  console.log(
    renderTable(
      ['operation', 'write units (table + index)', 'of which day figures', 'added to the rest'],
      insightsRows,
    ),
  );
} finally {
  globalThis.fetch = realFetch;
  await stack.stop();
}
