// Launch day at the identity provider: N never-seen players saved at once (POST /play/dev/batch-save-points, 100 a
// save), then the import queue drained by as many workers as the import trigger's maximumConcurrency
// (infra/functions.ts), each invoking functions/user/import-users.ts as Lambda's event source mapping would
// (one message an invocation), against the local provider enforcing its 240 creations a minute (429 with
// Retry-After past it). Until every player is imported: the time, the provider's peak creations in one window
// and its 429s, the messages deferred (put back with a delay) and the DLQ's count.
//   npx tsx bench/run.ts launch-imports                      (10 000 players: ≈ 43 minutes)
//   PLAYERS=500 npx tsx bench/launch-imports.ts               (a quick run)
// Prints figures; fails when a player is left unimported or a message reaches the DLQ.
import { randomBytes } from 'node:crypto';
import { GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import bs58 from 'bs58';
import { startStack } from '../scripts/stack/index.js';
import { renderTable } from './lib/table.js';

const PLAYERS = Number(process.env.PLAYERS ?? 10_000);
const DEVELOPERS = 4;

const stack = await startStack({
  offline: false,
  log: { info: () => {}, warn: () => {}, error: console.error, debug: () => {} },
});
// No HTTP API runs (the handlers are invoked in process): the public URL is only a setting here.
Object.assign(process.env, stack.functionEnv, stack.env, {
  POWERTOOLS_LOG_LEVEL: 'SILENT',
  PUBLIC_API_URL: stack.env.API_BASE_URL ?? 'http://127.0.0.1:3000',
});

try {
  const { OTHER_FUNCTIONS } = await import('../infra/functions.js');
  const { handler: batchSave } = await import('../functions/play-developer/batch-save-points.js');
  const { handler: importUsers } = await import('../functions/user/import-users.js');
  const { settings } = await import('../lib/core/config.js');
  const { importStates } = await import('../lib/user/index.js');
  const { createSqsPoller } = await import('../scripts/stack/sqs-poller.js');
  const { invoke } = await import('../tests/helpers/http.js');
  const { createDeveloper, hmacHeaders } = await import('../tests/helpers/users.js');
  const { registerGame } = await import('../tests/helpers/games.js');

  const trigger = OTHER_FUNCTIONS.importUsers?.events?.[0] as { sqs?: Record<string, unknown> } | undefined;
  const sqsEvent = trigger?.sqs ?? {};
  const workers = Number(sqsEvent.maximumConcurrency ?? 1);
  const batchSize = Number(sqsEvent.batchSize ?? 10);
  const idp = process.env.IDP_URL ?? '';
  const limits = async () =>
    (await (await fetch(`${idp}/local/limits/user-creation`)).json()) as {
      count: number;
      windowMs: number;
      created: number;
      refused: number;
      peak: number;
    };
  const before = await limits();

  // 1. The workers, as the trigger runs them, from before the first save until every player is imported.
  const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
  const region = process.env.AWS_REGION ?? 'us-east-1';
  const queueName = settings().USER_IMPORT_QUEUE_NAME;
  const queueUrl = (await sqs.send(new GetQueueUrlCommand({ QueueName: queueName }))).QueueUrl ?? '';
  const dlqUrl = (await sqs.send(new GetQueueUrlCommand({ QueueName: `${queueName}-dlq` }))).QueueUrl ?? '';
  const totals = { received: 0, invocations: 0, failed: 0 };
  let done = false;
  const pollers = Array.from({ length: workers }, () =>
    createSqsPoller({
      client: sqs,
      queueUrl,
      queueArn: `arn:aws:sqs:${region}:000000000000:${queueName}`,
      region,
      batchSize,
      reportBatchItemFailures: true,
      waitTimeSeconds: 1,
      invoke: (event) => importUsers(event),
    }),
  );
  const running = pollers.map(async (poller) => {
    while (!done) {
      const round = await poller.pollOnce();
      totals.received += round.received;
      totals.invocations += round.invocations;
      totals.failed += round.failed;
    }
  });
  // 2. The saves: PLAYERS new players, 100 a save, spread over developers (3 saves a second per API key); a save
  // answered 503 or 429 is sent again after its Retry-After, as a game server would.
  const importStarted = performance.now();
  const owners = await Promise.all(
    Array.from({ length: DEVELOPERS }, async () => {
      const dev = await createDeveloper();
      return { dev, game: await registerGame(dev) };
    }),
  );
  const path = '/play/dev/batch-save-points';
  const arcIds: string[] = [];
  let skew = 0;
  let resent = 0;
  const savesStarted = performance.now();
  await Promise.all(
    owners.map(async ({ dev, game }, d) => {
      for (let first = d * 100; first < PLAYERS; first += DEVELOPERS * 100) {
        const started = Date.now();
        const players = Array.from({ length: Math.min(100, PLAYERS - first) }, (_, i) =>
          i % 2 === 0
            ? `sol:${bs58.encode(randomBytes(32))}`
            : `email:${randomBytes(6).toString('hex')}@example.com`,
        );
        const send = () => {
          skew += 1;
          return invoke<{ data: { playerIdToArcId: Record<string, string> } }>(batchSave, {
            method: 'POST',
            path,
            headers: hmacHeaders(dev, 'POST', path, { timestamp: Date.now() - skew }),
            body: { gameId: game.id, entries: players.map((playerId) => ({ playerId, points: 1 })) },
            timeoutMs: 29_000,
          });
        };
        let res = await send();
        for (let retry = 0; (res.status === 503 || res.status === 429) && retry < 5; retry++) {
          resent++;
          await new Promise((r) => setTimeout(r, Number(res.headers['retry-after'] ?? 5) * 1000));
          res = await send();
        }
        if (res.status !== 200) throw new Error(`a save answered ${res.status}: ${JSON.stringify(res.body)}`);
        arcIds.push(...Object.values(res.body.data.playerIdToArcId));
        const wait = started + 350 - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
    }),
  );
  const savesSeconds = (performance.now() - savesStarted) / 1000;

  const deadline = Date.now() + (PLAYERS / 200) * 60_000 + 10 * 60_000;
  let imported = 0;
  for (;;) {
    imported = 0;
    for (let i = 0; i < arcIds.length; i += 100) {
      const states = await importStates(arcIds.slice(i, i + 100));
      for (const state of states.values()) if (state.subject || state.mergedAt) imported++;
    }
    if (imported === arcIds.length || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 5_000));
  }
  const importSeconds = (performance.now() - importStarted) / 1000;
  done = true;
  await Promise.all(running);
  const dlq = Number(
    (
      await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: dlqUrl,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
        }),
      )
    ).Attributes?.ApproximateNumberOfMessages ?? 'NaN',
  );
  const after = await limits();
  const messages = Math.ceil(arcIds.length / 20);
  console.log(
    renderTable(
      [
        'players',
        'saves (sent again)',
        'workers × batch',
        'imported',
        'first save → all imported',
        'users / min',
        'theory (n / limit)',
      ],
      [
        [
          arcIds.length,
          `${savesSeconds.toFixed(0)} s (${resent})`,
          `${workers} × ${batchSize}`,
          imported,
          `${(importSeconds / 60).toFixed(1)} min`,
          ((imported / importSeconds) * 60).toFixed(0),
          `${(arcIds.length / after.count).toFixed(1)} min at ${after.count} / min`,
        ],
      ],
    ),
  );
  console.log(
    renderTable(
      [
        'provider: created',
        'peak in one window',
        "429'd creations",
        'messages',
        'receives',
        'failed receives',
        'DLQ',
      ],
      [
        [
          after.created - before.created,
          `${after.peak} (limit ${after.count} / ${after.windowMs / 1000} s)`,
          after.refused - before.refused,
          messages,
          totals.received,
          totals.failed,
          dlq,
        ],
      ],
    ),
  );
  console.log(
    '\nreceives beyond the messages are deferred copies (a wait put back on the queue, never a receive of the' +
      ' original counted toward the DLQ).',
  );
  sqs.destroy();
  if (imported !== arcIds.length || dlq !== 0) {
    console.error(`not every player imported (${imported} of ${arcIds.length}) or the DLQ holds ${dlq}`);
    process.exitCode = 1;
  }
} finally {
  await stack.stop();
}
