// DynamoDB cost per request: round trips and consumed capacity of representative requests, next to the
// minimum their access pattern needs.  npx tsx bench/run.ts dynamodb-cost
// Starts the local stack (no serverless offline), runs the real handlers in-process, and counts every command
// the shared DynamoDB client sends through an SDK middleware that also asks for ReturnConsumedCapacity.
import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { startStack } from '../scripts/stack/index.js';
import { renderTable } from './lib/table.js';

const stack = await startStack({
  offline: false,
  log: { info: () => {}, warn: () => {}, error: console.error, debug: () => {} },
});
// No API runs here: PUBLIC_API_URL only has to satisfy the settings (every function parses them at load).
Object.assign(process.env, stack.functionEnv, stack.env, {
  POWERTOOLS_LOG_LEVEL: 'SILENT',
  PUBLIC_API_URL: process.env.PUBLIC_API_URL ?? 'http://127.0.0.1',
});

try {
  const { dynamo } = await import('../lib/adapters/dynamodb.js');
  const { invoke } = await import('../tests/helpers/http.js');
  const { createDeveloper, hmacHeaders } = await import('../tests/helpers/users.js');
  const { gameBody } = await import('../tests/helpers/games.js');
  const games = {
    create: (await import('../functions/games/create-game.js')).handler,
    get: (await import('../functions/games/get-game.js')).handler,
    list: (await import('../functions/games/list-games.js')).handler,
  };
  const play = {
    save: (await import('../functions/play-developer/batch-save-points.js')).handler,
    board: (await import('../functions/play-developer/get-dev-leaderboard.js')).handler,
  };

  let calls: Array<{ command: string; rcu: number; wcu: number }> = [];
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      input.ReturnConsumedCapacity = 'TOTAL';
      const out = await next(args);
      const consumed = (out.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
      const list = (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) as Array<{
        ReadCapacityUnits?: number;
        WriteCapacityUnits?: number;
        CapacityUnits?: number;
      }>;
      const rcu = list.reduce((s, c) => s + (c.ReadCapacityUnits ?? 0), 0);
      const wcu = list.reduce((s, c) => s + (c.WriteCapacityUnits ?? 0), 0);
      calls.push({ command: String(context.commandName), rcu, wcu });
      return out;
    },
    { step: 'initialize', name: 'countRoundTrips' },
  );

  const rows: Array<[string, number, string, number, string, string]> = [];
  const measure = async (
    name: string,
    minimum: number,
    why: string,
    run: () => Promise<{ status: number }>,
  ) => {
    calls = [];
    const res = await run();
    if (res.status >= 400) throw new Error(`${name} answered ${res.status}`);
    const rcu = calls.reduce((s, c) => s + c.rcu, 0);
    const wcu = calls.reduce((s, c) => s + c.wcu, 0);
    const commands = [...new Set(calls.map((c) => c.command.replace('Command', '')))].join(', ');
    rows.push([
      name,
      calls.length,
      `${rcu.toFixed(1)} / ${wcu.toFixed(1)}`,
      minimum,
      calls.length > minimum ? 'ABOVE' : 'ok',
      `${commands} — ${why}`,
    ]);
  };

  const dev = await createDeveloper();
  let gameId = '';
  await measure(
    'POST /games (JSON, base64 image)',
    4,
    'key lookup, signature spend, budget, 1 transaction',
    async () => {
      const res = await invoke<{ data: { game: { id: string } } }>(games.create, {
        method: 'POST',
        path: '/games',
        headers: hmacHeaders(dev, 'POST', '/games'),
        body: gameBody(),
      });
      gameId = res.body.data.game.id;
      return res;
    },
  );
  await measure('GET /games/id/{id}', 2, 'budget + 1 GetItem', () =>
    invoke(games.get, { method: 'GET', path: `/games/id/${gameId}`, pathParameters: { id: gameId } }),
  );
  await measure('GET /games (50, by pool value)', 3, 'budget + 1 Query + counter GetItem (in parallel)', () =>
    invoke(games.list, { method: 'GET', path: '/games', query: { limit: '50' } }),
  );
  const players = Array.from({ length: 100 }, () => `sol:${bs58.encode(randomBytes(32))}`);
  const entries = players.map((playerId) => ({ playerId, points: 10 }));
  const save = (skew: number) =>
    invoke(play.save, {
      method: 'POST',
      path: '/play/dev/batch-save-points',
      headers: hmacHeaders(dev, 'POST', '/play/dev/batch-save-points', { timestamp: Date.now() - skew }),
      body: { gameId, entries },
    });
  await measure(
    'batch-save-points, 100 new players',
    116,
    '4 auth/budgets + game + resolve + 1 per new user (a conditional create; the provider import is queued) + 5 state BatchGets in parallel (402 keys: day and all-time totals, multiplier slot, session per player; the meta items of both boards) + 4 transactions (3 writes per player, a player never split, + the merged counter ADDs of their copies and the meta items of both boards; ≤ 100 items each); +1 stats counter',
    () => save(0),
  );
  await new Promise((r) => setTimeout(r, 1100));
  await measure(
    'batch-save-points, 100 known players',
    16,
    '4 auth/budgets + game + resolve + 5 state BatchGets in parallel (402 keys: day and all-time totals, multiplier slot, session per player; the meta items of both boards) + 4 transactions (3 writes per player, a player never split, + the merged counter ADDs of their copies, old and new score; ≤ 100 items each); +1 stats counter',
    () => save(1000),
  );
  await measure(
    'GET /play/dev/leaderboard (top 50, all tied)',
    5,
    "key lookup, budget, game, the board's meta item, 1 Query per index shard (1 for a board of 100: docs/leaderboards.md)",
    () =>
      invoke(play.board, {
        method: 'GET',
        path: `/play/dev/leaderboard/${gameId}`,
        pathParameters: { gameId },
        headers: hmacHeaders(dev, 'GET', `/play/dev/leaderboard/${gameId}`),
        query: { period: 'alltime' },
      }),
  );

  console.log(
    'RCU/WCU read the ReadCapacityUnits/WriteCapacityUnits fields, which DynamoDB Local leaves out (it reports ' +
      "CapacityUnits, and one item's for a whole transaction): units per operation are bench/cost.ts's.\n",
  );
  console.log(
    renderTable(
      ['request', 'round trips', 'RCU / WCU', 'minimum', 'vs minimum', 'commands — minimum reasoning'],
      rows,
    ),
  );
} finally {
  await stack.stop();
}
