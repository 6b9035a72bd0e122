// Every scheduled function of serverless.yml, run by the stack's serverless offline the way its scheduler runs it.
// serverless offline's Schedule takes the function from its Lambda pool (`lambda.get(functionKey)`) and runs the
// handler with a ScheduleEvent (or the schedule's `input`); its Lambda invoke API runs the same pool entry, built
// with the same environment. The scheduler's own trigger is a cron inside the offline process, so the test posts
// that event to the invoke API and checks what the run did. Calling the handler in-process (other tests,
// `npm run invoke`) uses another environment: that is how the hourly snapshot schedule could fail under
// `npm run dev` with QueueDoesNotExist (an unresolved `Ref` as its queue URL) while every test passed.
import { randomBytes, randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import {
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { dynamo } from '../../lib/adapters/dynamodb.js';
import { settings } from '../../lib/core/config.js';
import { getGame, saveGame } from '../../lib/games/repository.js';
import { createJob, getLockHolder } from '../../lib/launcher/lock-repository.js';
import { getJob } from '../../lib/launcher/repository.js';
import { newJob } from '../../lib/launcher/service.js';
import { eventKey, outboxItem } from '../../lib/outbox/index.js';
import { entrantsItem, tournamentPlayKeys } from '../../lib/play/ranks/tournament-entries.js';
import { batchSavePoints } from '../../lib/play/saves/save.js';
import { getSettlement } from '../../lib/rewards/settlement/repository.js';
import { dueDays } from '../../lib/rewards/settlement/schedule.js';
import { localDirectory } from '../../lib/user/directory.js';
import { loadServerlessConfig } from '../../scripts/stack/config.js';
import { registerGame } from '../helpers/games.js';
import { createDeveloper } from '../helpers/users.js';

const config = await loadServerlessConfig(resolve(import.meta.dirname, '../..'));

/** The events serverless offline's scheduler would fire for a function, one per schedule. */
const scheduledEvents = (events: Array<Record<string, unknown>> = []) =>
  events.flatMap((event) => {
    if (!('schedule' in event)) return [];
    const schedule = event.schedule as string | { enabled?: boolean; input?: unknown };
    if (typeof schedule === 'object' && schedule.enabled === false) return [];
    if (typeof schedule === 'object' && schedule.input !== undefined) return [schedule.input];
    // serverless-offline's ScheduleEvent, as EventBridge sends it.
    return [
      {
        account: randomUUID(),
        detail: {},
        'detail-type': 'Scheduled Event',
        id: randomUUID(),
        region: config.provider.region ?? 'us-east-1',
        resources: [],
        source: 'aws.events',
        time: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
        version: '0',
      },
    ];
  });

const scheduled = Object.entries(config.functions ?? {})
  .map(([key, fn]) => ({ key, name: fn.name ?? key, events: scheduledEvents(fn.events) }))
  .filter(({ events }) => events.length > 0);

/** Runs a function through serverless offline's Lambda pool; fails on a handler error. */
const runOffline = async (functionName: string, event: unknown) => {
  const url = `${process.env.LAMBDA_INVOKE_URL}/2015-03-31/functions/${functionName}/invocations`;
  const response = await fetch(url, { method: 'POST', body: JSON.stringify(event) });
  const text = await response.text();
  expect(response.headers.get('x-amz-function-error'), text).toBeNull();
  expect(response.status, text).toBe(200);
  return text ? (JSON.parse(text) as unknown) : undefined;
};

const sqs = new SQSClient({ useQueueUrlAsEndpoint: false });

/** Messages in a queue, visible or not: receiving moves them between the two, only a delete lowers the sum. */
const messagesIn = async (queueName: string) => {
  const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: queueName }));
  const { Attributes = {} } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    }),
  );
  return Object.values(Attributes).reduce((sum, n) => sum + Number(n), 0);
};

const base58Key = () => bs58.encode(randomBytes(32));

/** A game with a launched coin and an airdrop token: what the snapshot schedule queues builds for. */
const airdropCoin = async () => {
  const view = await registerGame(await createDeveloper());
  const game = await getGame(view.id);
  if (!game) throw new Error('game missing');
  const now = new Date().toISOString();
  const coin = {
    coinMint: base58Key(),
    gameCoinSymbol: 'SCHED',
    emissionDays: 7,
    status: 'active',
    emissionStartAt: now,
    emissionEndAt: now,
  };
  await saveGame({ ...game, version: game.version + 1, airdropTokenAddress: base58Key(), coin }, game);
};

/** Per scheduled function: set up what it acts on, then check its effect from the run's result. */
const effects: Record<string, () => Promise<(result: unknown) => Promise<void>>> = {
  relayWebhooks: async () => {
    // An event left pending in the outbox (as by a change whose relay has not run yet): the run takes it out of
    // the pending index. The stack's own schedule may have relayed it first: the event's state is what counts.
    const item = outboxItem('session.invalidated', randomUUID(), {
      sessionId: randomUUID(),
      arcId: randomUUID(),
      reason: null,
    });
    await dynamo().send(new TransactWriteCommand({ TransactItems: [item] }));
    const eventId = String(item.Put?.Item?.eventId);
    return async (result) => {
      expect(result).toEqual({ relayed: expect.any(Number) });
      const stored = await dynamo().send(
        new GetCommand({
          TableName: settings().WEBHOOKS_TABLE,
          Key: eventKey(eventId),
          ConsistentRead: true,
        }),
      );
      expect(stored.Item?.eventId).toBe(eventId);
      expect(stored.Item?.outboxPending).toBeUndefined();
    };
  },
  sweepLaunchJobs: async () => {
    // A launch abandoned long ago: its job was created (with the game's lock and its symbol) 2 hours back and no
    // execution ever ran it. The run asks the stack's Step Functions stand-in, then fails it and frees the game.
    const dev = await createDeveloper();
    const game = await getGame((await registerGame(dev)).id);
    if (!game) throw new Error('game missing');
    const symbol = `SW${randomBytes(3).toString('hex').replace(/[0-9]/g, 'X').toUpperCase()}`;
    const job = newJob(
      { userId: dev.arcId },
      game,
      { emissionDays: 7, buyAmount: 0n, symbol, custom: true },
      { now: () => new Date(Date.now() - 2 * 60 * 60 * 1000), publicApiUrl: 'http://localhost' },
    );
    expect(await createJob(job, game)).toBe('created');
    return async (result) => {
      expect(result).toEqual({ swept: expect.any(Array) });
      // The stack's own scheduler may have run first: the job's state is what counts.
      const swept = (result as { swept: Array<{ jobId: string }> }).swept.find((s) => s.jobId === job.jobId);
      if (swept) expect(swept).toEqual({ jobId: job.jobId, execution: 'MISSING', status: 'failed' });
      expect((await getJob(job.jobId))?.status).toBe('failed');
      expect(await getLockHolder(game.id)).toBeUndefined();
    };
  },
  scheduleSnapshots: async () => {
    // The queue is shared with tests/integration/snapshots.test.ts, which receives from it: count, never receive.
    const queueName = config.resources?.Resources?.SnapshotQueue?.Properties?.QueueName;
    if (typeof queueName !== 'string') throw new Error('serverless.yml has no SnapshotQueue name');
    await airdropCoin();
    const before = await messagesIn(queueName);
    return async (result) => {
      expect(result).toEqual({ queued: expect.any(Number) });
      const { queued } = result as { queued: number };
      expect(queued).toBeGreaterThanOrEqual(1);
      expect((await messagesIn(queueName)) - before).toBeGreaterThanOrEqual(queued);
    };
  },
  scheduleTournamentCloses: async () => {
    // A tournament period whose close time has passed (its record as a save writes it): the run queues it on the
    // settlement queue and moves its close time ahead (queued again only if its run is lost). The stack's own
    // schedule may have queued it first: the record's close time is what counts.
    const gameId = randomUUID();
    const tournamentId = randomUUID();
    const periodId = '2026-01-05T00:00:00Z';
    const key = tournamentPlayKeys.period(gameId, tournamentId, periodId);
    const closeAt = '2026-01-05T01:01:00.000Z';
    await dynamo().send(
      new TransactWriteCommand({
        TransactItems: [
          entrantsItem({ key, gameId, added: 1, maxEntrants: null, expiresAt: 4_102_444_800, closeAt }),
        ],
      }),
    );
    return async (result) => {
      expect(result).toEqual({ queued: expect.any(Number) });
      const stored = await dynamo().send(
        new GetCommand({ TableName: settings().PLAY_TABLE, Key: key, ConsistentRead: true }),
      );
      expect(Date.parse(String(stored.Item?.closeAt))).toBeGreaterThan(Date.now());
    };
  },
  scheduleSettlements: async () => {
    // A game with a player on the latest day due: the schedule queues it, the stack's event source mapping hands
    // the message to settleGameDays, and the day ends up settled.
    const dev = await createDeveloper();
    const view = await registerGame(dev);
    const [day] = dueDays(new Date());
    if (!day) throw new Error('no due day');
    await batchSavePoints(
      { scheme: 'hmac', userId: dev.arcId, apiKey: dev.apiKey },
      { gameId: view.id, entries: [{ playerId: `x:sched${randomUUID().slice(0, 6)}`, points: 5 }] },
      { directory: localDirectory, now: () => new Date(`${day}T12:00:00.000Z`) },
    );
    return async (result) => {
      expect(result).toMatchObject({ queued: expect.any(Number), days: expect.arrayContaining([day]) });
      expect((result as { queued: number }).queued).toBeGreaterThanOrEqual(1);
      // The test stack runs no SQS pollers (tests drive consumers themselves): play the event source mapping's
      // part, receiving this game's message from the queue the schedule sent it to and handing it to
      // settleGameDays through serverless offline.
      const queueName = config.resources?.Resources?.SettlementQueue?.Properties?.QueueName;
      if (typeof queueName !== 'string') throw new Error('serverless.yml has no SettlementQueue name');
      const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: queueName }));
      const consumer = config.functions?.settleGameDays;
      if (!consumer) throw new Error('serverless.yml has no settleGameDays');
      const deadline = Date.now() + 30_000;
      let mine: { MessageId?: string; Body?: string; ReceiptHandle?: string } | undefined;
      while (!mine && Date.now() < deadline) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 1,
            VisibilityTimeout: 5,
          }),
        );
        mine = Messages.find((m) => m.Body?.includes(view.id) && m.Body.includes(day));
      }
      if (!mine) throw new Error(`no settlement message for ${view.id} ${day}`);
      const outcome = await runOffline(consumer.name ?? 'settleGameDays', {
        Records: [{ messageId: mine.MessageId, body: mine.Body, eventSource: 'aws:sqs', attributes: {} }],
      });
      expect(outcome).toEqual({ batchItemFailures: [] });
      await sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: mine.ReceiptHandle }));
      expect((await getSettlement(view.id, day))?.status).toBe('settled');
    };
  },
};

describe('scheduled functions under serverless offline', () => {
  it('every schedule in serverless.yml has its effect checked here', () => {
    expect(scheduled.map((s) => s.key).sort()).toEqual(Object.keys(effects).sort());
  });

  for (const { key, name, events } of scheduled) {
    it(`${key}: each of its schedules runs as deployed and does its work`, async () => {
      const arrange = effects[key];
      if (!arrange) throw new Error(`no effect check for the scheduled function ${key}`);
      for (const event of events) {
        const check = await arrange();
        await check(await runOffline(name, event));
      }
    }, 120_000);
  }
});
