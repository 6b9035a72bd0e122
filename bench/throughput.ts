// Throughput of POST /play/dev/batch-save-points (100 entries) through serverless offline, in players saved
// per second, next to raw DynamoDB BatchWriteItem of the same number of items as the ceiling.
//   npx tsx bench/run.ts throughput        (loopback only, 15 s of load)
// The route allows 3 requests per second per API key, so the load is spread over several developers (each
// owning a game): the limit is a product rule and the benchmark measures the service under it.
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import bs58 from 'bs58';
import { startStack } from '../scripts/stack/index.js';
import { renderTable } from './lib/table.js';

const DEVELOPERS = 6;
const DURATION_S = 15;

const stack = await startStack({
  offline: true,
  log: { info: () => {}, warn: () => {}, error: console.error, debug: () => {} },
});
Object.assign(process.env, stack.functionEnv, stack.env, { POWERTOOLS_LOG_LEVEL: 'SILENT' });

try {
  const { BatchWriteCommand } = await import('@aws-sdk/lib-dynamodb');
  const { dynamo } = await import('../lib/adapters/dynamodb.js');
  const { createDeveloper, hmacHeaders } = await import('../tests/helpers/users.js');
  const { registerGame } = await import('../tests/helpers/games.js');
  const base = stack.env.API_BASE_URL ?? '';
  const path = '/play/dev/batch-save-points';

  const owners = await Promise.all(
    Array.from({ length: DEVELOPERS }, async () => {
      const dev = await createDeveloper();
      return { dev, game: await registerGame(dev) };
    }),
  );
  // A fixed pool of players per game, so the steady state (known players) is what is measured.
  const bodies = owners.map(({ game }) =>
    JSON.stringify({
      gameId: game.id,
      entries: Array.from({ length: 100 }, () => ({
        playerId: `sol:${bs58.encode(randomBytes(32))}`,
        points: 1,
      })),
    }),
  );
  // Warm-up: one save per game creates its 100 players and loads the function, so the load measures steady state.
  for (const [i, owner] of owners.entries()) {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...hmacHeaders(owner.dev, 'POST', path) },
      body: bodies[i],
    });
    if (res.status !== 200) throw new Error(`warm-up answered ${res.status}`);
  }
  await new Promise((r) => setTimeout(r, 1100));
  let turn = 0;
  let skew = 0;
  const result = await autocannon({
    url: `${base}${path}`,
    method: 'POST',
    connections: DEVELOPERS,
    duration: DURATION_S,
    requests: [
      {
        setupRequest: (request) => {
          const i = turn++ % DEVELOPERS;
          const owner = owners[i];
          if (!owner) return request;
          skew = (skew + 1) % 100_000;
          return {
            ...request,
            body: bodies[i],
            headers: {
              'content-type': 'application/json',
              ...hmacHeaders(owner.dev, 'POST', path, { timestamp: Date.now() - skew }),
            },
          };
        },
      },
    ],
  });
  const ok = result['2xx'];
  // Anything but a 2xx or a timely answer is shown, not folded into the rate.
  console.log(
    `statuses ${JSON.stringify(result.statusCodeStats)}, errors ${result.errors}, timeouts ${result.timeouts}`,
  );
  const limited = result.non2xx;
  const savedPerSecond = (ok * 100) / DURATION_S;

  // Ceiling: the same number of items written with raw BatchWriteItem (25 per call), as fast as possible.
  const table = process.env.PLAY_TABLE ?? '';
  const items = Array.from({ length: 5000 }, (_, i) => ({ pk: `BENCH#${i}`, sk: 'ALL', points: 1 }));
  const started = performance.now();
  const chunks = Array.from({ length: items.length / 25 }, (_, i) => items.slice(i * 25, i * 25 + 25));
  for (let i = 0; i < chunks.length; i += DEVELOPERS) {
    await Promise.all(
      chunks.slice(i, i + DEVELOPERS).map((chunk) =>
        dynamo().send(
          new BatchWriteCommand({
            RequestItems: { [table]: chunk.map((Item) => ({ PutRequest: { Item } })) },
          }),
        ),
      ),
    );
  }
  const rawPerSecond = items.length / ((performance.now() - started) / 1000);

  console.log(
    renderTable(
      ['path', 'requests ok', 'answered 429', 'p50 latency', 'players saved / s', 'vs raw BatchWriteItem'],
      [
        [
          'batch-save-points via serverless offline',
          ok,
          limited,
          `${result.latency.p50} ms`,
          savedPerSecond.toFixed(0),
          `${((savedPerSecond / rawPerSecond) * 100).toFixed(1)} %`,
        ],
        ['raw BatchWriteItem (ceiling)', '', '', '', rawPerSecond.toFixed(0), '100 %'],
      ],
    ),
  );
  console.log(
    `\n${DEVELOPERS} developers × 3 requests/s allowed = at most ${DEVELOPERS * 3 * 100} players/s by the product's rate limit.`,
  );
} finally {
  await stack.stop();
}
