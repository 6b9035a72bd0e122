// The hourly settlement schedule at scale: 100 000 games with activity on one day, seeded into DynamoDB Local as
// the save path leaves them (a day board's height item with its byActiveDay entry), then the schedule's use case
// run once as the function runs it (the games from the index, the settled check, the queue through the local
// SQS). Prints the time against the function's 60 s timeout and the requests made; it asserts nothing.
//   npm run bench -- settlement-schedule [games]
import { createHash, randomUUID } from 'node:crypto';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { startStack } from '../scripts/stack/index.js';
import { renderTable } from './lib/table.js';

const GAMES = Number(process.argv[2] ?? 100_000);
const TIMEOUT_S = 60;

const stack = await startStack({
  offline: false,
  log: { info: () => {}, warn: () => {}, error: console.error, debug: () => {} },
});
Object.assign(process.env, stack.functionEnv, stack.env, { POWERTOOLS_LOG_LEVEL: 'SILENT' });
process.env.PUBLIC_API_URL ||= 'http://127.0.0.1:3000';

try {
  const { QueueUrl } = await new SQSClient({}).send(
    new CreateQueueCommand({ QueueName: `bench-settlement-schedule-${randomUUID().slice(0, 8)}` }),
  );
  process.env.SETTLEMENT_QUEUE_URL = QueueUrl;
  const { dynamo } = await import('../lib/adapters/dynamodb.js');
  const { gamesActiveOn } = await import('../lib/play/index.js');
  const { dueDays, scheduleSettlements, sendSettlementMessages } = await import('../lib/rewards/index.js');

  const now = new Date('2031-01-03T12:00:00.000Z');
  const [day] = dueDays(now);
  if (!day) throw new Error('no due day');

  // A day board's height item as the board's first score writes it (lib/play/ranks/writes.ts heightItem; the
  // shard is the game's, 16 of them: lib/play/keys.ts ACTIVITY_SHARDS).
  const shard = (gameId: string) => createHash('sha256').update(gameId).digest().readUInt32BE(0) % 16;
  const items = Array.from({ length: GAMES }, () => {
    const gameId = randomUUID();
    return {
      pk: `RANK#${gameId}#${day}#HEIGHT`,
      sk: 'HEIGHT',
      levels: new Set([1]),
      activeDay: `${day}#${shard(gameId)}`,
      activeGame: gameId,
    };
  });
  const table = String(process.env.PLAY_TABLE);
  const seedStarted = performance.now();
  const batches = Array.from({ length: Math.ceil(items.length / 25) }, (_, i) =>
    items.slice(i * 25, i * 25 + 25),
  );
  let nextBatch = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (nextBatch < batches.length) {
        const batch = batches[nextBatch++] ?? [];
        let request: Record<string, unknown[]> | undefined = {
          [table]: batch.map((Item) => ({ PutRequest: { Item } })),
        };
        while (request && Object.keys(request).length > 0) {
          const out = await dynamo().send(new BatchWriteCommand({ RequestItems: request as never }));
          request = out.UnprocessedItems as typeof request;
        }
      }
    }),
  );
  const seedMs = performance.now() - seedStarted;

  // Requests of the run, by command (DynamoDB through the shared client; SQS counted at the send port).
  const requests = new Map<string, number>();
  const count = (name: string, n = 1) => requests.set(name, (requests.get(name) ?? 0) + n);
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { IndexName?: string };
      count(`DynamoDB ${context.commandName}${input.IndexName ? ` (${input.IndexName})` : ''}`);
      return next(args);
    },
    { step: 'initialize', name: 'benchCount' },
  );

  const started = performance.now();
  const result = await scheduleSettlements({
    now: () => now,
    gamesActiveOn,
    send: (bodies) => {
      count('SQS SendMessageBatch', Math.ceil(bodies.length / 10));
      return sendSettlementMessages(bodies);
    },
  });
  const ms = performance.now() - started;

  console.log(
    `${GAMES.toLocaleString('en-US')} games with activity on ${day}; seeded in ${(seedMs / 1000).toFixed(1)} s ` +
      '(BatchWriteItem, DynamoDB Local)\n',
  );
  console.log(
    renderTable(
      ['run', 'time', 'of the 60 s timeout', 'queued', 'due days'],
      [
        [
          'scheduleSettlements',
          `${(ms / 1000).toFixed(2)} s`,
          `${((ms / 1000 / TIMEOUT_S) * 100).toFixed(0)} %`,
          result.queued,
          result.days.join(', '),
        ],
      ],
    ),
  );
  console.log(
    `\n${renderTable(
      ['request', 'count'],
      [...requests].map(([name, n]) => [name, n]),
    )}`,
  );
} finally {
  await stack.stop();
}
