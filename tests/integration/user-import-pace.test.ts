// The import at the provider's pace, against the local stack and a provider enforcing its creation limit (here 20
// per 10 s, the pace configured alike; tests/helpers/paced-idp.ts): a burst of new players is drained by as many
// concurrent workers as the import trigger allows, each running functions/user/import-users.ts as Lambda's event
// source mapping would, without one 429 and without one message dead-lettered; a provider that answers 429 with a
// Retry-After has the message wait that long on the queue, put back, never a receive of it spent.
// First: this file's own provider, app and queues (see the helper).
import '../helpers/paced-idp.js';
import { randomBytes } from 'node:crypto';
import { GetQueueAttributesCommand, GetQueueUrlCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import bs58 from 'bs58';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { handler as batchSave } from '../../functions/play-developer/batch-save-points.js';
import { handler as importUsers } from '../../functions/user/import-users.js';
import { OTHER_FUNCTIONS } from '../../infra/functions.js';
import { importStates } from '../../lib/user/repository.js';
import { createSqsPoller } from '../../scripts/stack/sqs-poller.js';
import { registerGame } from '../helpers/games.js';
import { invoke } from '../helpers/http.js';
import { setProviderFault } from '../helpers/idp.js';
import { PACED_LIMIT, pacedIdp, pacedQueues } from '../helpers/paced-idp.js';
import { createDeveloper, hmacHeaders } from '../helpers/users.js';

const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });
const region = process.env.AWS_REGION ?? 'us-east-1';
const [importTrigger] = (OTHER_FUNCTIONS.importUsers?.events ?? []) as Array<{
  sqs: Record<string, unknown>;
}>;
const trigger = importTrigger?.sqs ?? {};

afterEach(() => setProviderFault(null));
afterAll(async () => {
  sqs.destroy();
  await pacedIdp.stop();
});

interface CreationStats {
  created: number;
  refused: number;
  peak: number;
}
const creationStats = async () =>
  (await (await fetch(`${pacedIdp.url}/local/limits/user-creation`)).json()) as CreationStats;

const dlqDepth = async () => {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: pacedQueues.dlqUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return (
    Number(Attributes?.ApproximateNumberOfMessages) +
    Number(Attributes?.ApproximateNumberOfMessagesNotVisible)
  );
};

let skew = 0;
/** `count` never-seen players saved at once (POST /play/dev/batch-save-points): their Arc IDs. */
const saveNewPlayers = async (count: number) => {
  const dev = await createDeveloper();
  const game = await registerGame(dev);
  const path = '/play/dev/batch-save-points';
  skew += 1;
  const res = await invoke<{ data: { playerIdToArcId: Record<string, string> } }>(batchSave, {
    method: 'POST',
    path,
    headers: hmacHeaders(dev, 'POST', path, { timestamp: Date.now() - skew }),
    body: {
      gameId: game.id,
      entries: Array.from({ length: count }, (_, i) => ({
        playerId:
          i % 2
            ? `sol:${bs58.encode(randomBytes(32))}`
            : `email:${randomBytes(6).toString('hex')}@example.com`,
        points: 1,
      })),
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return Object.values(res.body.data.playerIdToArcId);
};

/**
 * The trigger's workers (its maximumConcurrency, its batchSize) draining this file's queue until every one of
 * `arcIds` is imported: the records each invocation got (their receive counts), and the time it took.
 */
const drain = async (arcIds: string[], timeoutMs: number) => {
  const queueUrl = (await sqs.send(new GetQueueUrlCommand({ QueueName: pacedQueues.name }))).QueueUrl ?? '';
  const receiveCounts: number[] = [];
  const poller = () =>
    createSqsPoller({
      client: sqs,
      queueUrl,
      queueArn: `arn:aws:sqs:${region}:000000000000:${pacedQueues.name}`,
      region,
      batchSize: Number(trigger.batchSize),
      reportBatchItemFailures: true,
      waitTimeSeconds: 1,
      invoke: (event: SQSEvent) => {
        for (const record of event.Records)
          receiveCounts.push(Number(record.attributes.ApproximateReceiveCount));
        return importUsers(event);
      },
    });
  const started = Date.now();
  let done = false;
  const workers = Array.from({ length: Number(trigger.maximumConcurrency) }, async () => {
    const worker = poller();
    while (!done) await worker.pollOnce();
  });
  try {
    for (;;) {
      const states = await importStates(arcIds);
      if (arcIds.every((id) => states.get(id)?.subject)) break;
      if (Date.now() - started > timeoutMs) throw new Error(`users not imported within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    done = true;
    await Promise.all(workers);
  }
  return { receiveCounts, ms: Date.now() - started };
};

describe("the import at the provider's pace", () => {
  it('drains a burst of new players with concurrent workers: none refused 429, none dead-lettered', async () => {
    expect(Number(trigger.maximumConcurrency)).toBeGreaterThanOrEqual(2);
    const before = await creationStats();
    // Five provider batches: one window's worth at once, the rest a window (and the pace's 1 s margin) later.
    const arcIds = await saveNewPlayers(100);
    const { receiveCounts, ms } = await drain(arcIds, 120_000);
    const after = await creationStats();
    expect(after.created - before.created).toBe(100);
    expect(after.refused - before.refused).toBe(0);
    expect(after.peak).toBeLessThanOrEqual(PACED_LIMIT.count);
    // 100 creations at 20 a window: the last batch no sooner than four windows in.
    expect(ms).toBeGreaterThanOrEqual(4 * PACED_LIMIT.windowMs);
    // A message is received once; the waits (the pace full) are copies put back, never a receive counted.
    expect(Math.max(...receiveCounts)).toBe(1);
    expect(await dlqDepth()).toBe(0);
  }, 150_000);

  it('a 429 with Retry-After: the message waits that long on the queue, never a receive spent', async () => {
    const arcIds = await saveNewPlayers(20);
    await setProviderFault('limited', 12);
    const limitedAt = Date.now();
    // The provider answers 429 to everything until healed, 15 s in: the message waits 12 s, then once more.
    const heal = new Promise<void>((resolve) => setTimeout(() => resolve(setProviderFault(null)), 15_000));
    const { receiveCounts, ms } = await drain(arcIds, 120_000);
    await heal;
    expect(Date.now() - limitedAt).toBeGreaterThanOrEqual(15_000);
    expect(ms).toBeGreaterThanOrEqual(12_000);
    // Received at least twice in all (the original, then its copy put back), each copy once.
    expect(receiveCounts.length).toBeGreaterThanOrEqual(2);
    expect(Math.max(...receiveCounts)).toBe(1);
    expect(await dlqDepth()).toBe(0);
  }, 150_000);
});
