// The events of a game's changes, each recorded by the code that makes the change and delivered once to a local
// receiver, its signature checked with the `standardwebhooks` library: the money paths (a multiplier purchase on
// the local chain, a day's settlement and its payouts), the play paths (a session flagged by a save, a session
// invalidated) and an ownership proof. The relay and the delivery worker run in-process on the stack's queue.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import bs58 from 'bs58';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as claimOwnership } from '../../functions/games/claim-game-ownership.js';
import { sideEffects as settleDeps } from '../../functions/settlement/settle-game-days.js';
import { handler as createEndpointHandler } from '../../functions/webhooks/create-webhook-endpoint.js';
import { handler as listEndpointsHandler } from '../../functions/webhooks/list-webhook-endpoints.js';
import { handler as updateEndpointHandler } from '../../functions/webhooks/update-webhook-endpoint.js';
import { dynamo } from '../../lib/adapters/dynamodb.js';
import { settings } from '../../lib/core/config.js';
import { failTask } from '../../lib/launcher/index.js';
import { createJob } from '../../lib/launcher/lock-repository.js';
import { newJob } from '../../lib/launcher/service.js';
import { defaultSessionId } from '../../lib/play/keys.js';
import { invalidateSessions } from '../../lib/play/protocol/invalidate.js';
import { batchSavePoints } from '../../lib/play/saves/save.js';
import { settleGameDay } from '../../lib/rewards/settlement/settle.js';
import { localDirectory } from '../../lib/user/directory.js';
import { queueDeliveries, relayPending } from '../../lib/webhooks/index.js';
import { registerGame } from '../helpers/games.js';
import { invoke } from '../helpers/http.js';
import { chain, payoutOf, randomDay, seedDay } from '../helpers/settlement.js';
import { createDeveloper, type Developer, hmacHeaders } from '../helpers/users.js';
import { type Receiver, startDeliveryWorker, startReceiver, waitFor } from '../helpers/webhooks.js';

interface Payload {
  id: string;
  type: string;
  version: number;
  gameId: string;
  data: Record<string, unknown>;
}

let worker: Awaited<ReturnType<typeof startDeliveryWorker>>;
const receivers: Receiver[] = [];
beforeAll(async () => {
  worker = await startDeliveryWorker();
});
afterAll(async () => {
  await worker?.stop();
  await Promise.all(receivers.map((r) => r.close()));
});

const ALL_TYPES = [
  'settlement.completed',
  'payout.sent',
  'payout.carried',
  'claim.landed',
  'session.flagged',
  'session.invalidated',
  'launch.completed',
  'launch.failed',
  'multiplier.purchased',
  'ownership.verified',
];

/** A receiver and an endpoint of the game subscribed to every type; returns them and the secret. */
const subscribe = async (dev: Developer, gameId: string) => {
  const r = await startReceiver();
  receivers.push(r);
  const path = `/webhooks/${gameId}/endpoints`;
  const res = await invoke<{ data: { secret: string } }>(createEndpointHandler, {
    method: 'POST',
    path,
    pathParameters: { gameId },
    headers: hmacHeaders(dev, 'POST', path),
    body: { url: r.url, eventTypes: ALL_TYPES },
  });
  expect(res.status, res.text).toBe(201);
  return { r, secret: res.body.data.secret };
};

/** Every delivery verified by the library, as payloads; fails on a duplicate webhook-id. */
const deliveredPayloads = (r: Receiver, secret: string): Payload[] => {
  const payloads = r.received.map(
    (d) =>
      new Webhook(secret).verify(d.body, {
        'webhook-id': String(d.headers['webhook-id']),
        'webhook-timestamp': String(d.headers['webhook-timestamp']),
        'webhook-signature': String(d.headers['webhook-signature']),
      }) as Payload,
  );
  expect(new Set(payloads.map((p) => p.id)).size).toBe(payloads.length);
  return payloads;
};

const relay = () => relayPending({ queue: queueDeliveries });
const settle = async (ms = 2_000) => new Promise((resolve) => setTimeout(resolve, ms));

describe('webhook events', () => {
  it('delivers multiplier.purchased, session.invalidated, settlement.completed, payout.sent and a forced payout.carried once each', async () => {
    // Subscribed before anything happens to the game: each event goes to the endpoints subscribed when it is
    // relayed, which is right after its change commits.
    let subscribed: Awaited<ReturnType<typeof subscribe>> | undefined;
    const seeded = await seedDay({
      day: randomDay(),
      playerCount: 4,
      onGame: async (dev, gameId) => {
        subscribed = await subscribe(dev, gameId);
      },
    });
    if (!subscribed) throw new Error('not subscribed');
    const { r, secret } = subscribed;
    const cheater = seeded.players[0];
    if (!cheater) throw new Error('no players');
    const sessionId = defaultSessionId(seeded.day, cheater.arcId);
    await invalidateSessions(
      { scheme: 'hmac', userId: seeded.dev.arcId, apiKey: seeded.dev.apiKey },
      { gameId: seeded.gameId, sessionIds: [sessionId] },
    );
    const outcome = await settleGameDay(seeded.gameId, seeded.day, {
      ...settleDeps,
      now: () => seeded.after,
    });
    expect(outcome.status).toBe('settled');
    if (outcome.status !== 'settled') return;
    const lines = outcome.settlement.lines;
    await relay();
    await waitFor(() => r.received.length >= 3 + lines.length, 20_000, 'the events');
    await relay();
    await settle();
    const payloads = deliveredPayloads(r, secret);
    for (const p of payloads) expect(p).toMatchObject({ version: 1, gameId: seeded.gameId });
    const ofType = (type: string) => payloads.filter((p) => p.type === type);

    expect(ofType('multiplier.purchased')).toHaveLength(1);
    expect(ofType('multiplier.purchased')[0]?.data).toMatchObject({
      multiplier: 3,
      signature: expect.any(String),
    });
    expect(ofType('session.invalidated').map((p) => p.data)).toEqual([
      { sessionId, arcId: cheater.arcId, reason: null },
    ]);
    const [completed, ...more] = ofType('settlement.completed');
    expect(more).toHaveLength(0);
    expect(completed?.data).toMatchObject({ day: seeded.day, totalLamports: outcome.settlement.allocated });
    expect(completed?.data.recipients).toHaveLength(lines.length);

    // One payout event per line: sent with its signature, or carried with what carries; amounts from the records.
    const sent = ofType('payout.sent');
    const carried = ofType('payout.carried');
    expect(sent.length + carried.length).toBe(lines.length);
    expect(sent.length).toBeGreaterThan(0);
    for (const p of sent) {
      const record = await payoutOf(seeded.gameId, seeded.day, String(p.data.arcId));
      expect(p.data).toEqual({
        day: seeded.day,
        arcId: record?.arcId,
        lamports: record?.send,
        signature: record?.signature,
      });
    }
    for (const p of carried) {
      const record = await payoutOf(seeded.gameId, seeded.day, String(p.data.arcId));
      expect(record?.status).toBe('carried');
      expect(p.data).toMatchObject({ lamports: record?.due, reason: expect.any(String) });
    }
    // The wallet that cannot receive yet (no account on chain; its share is below the rent-exempt minimum): its
    // payout is carried, and said so once.
    const unfunded = seeded.players[2];
    expect(await chain.getBalance(unfunded?.wallet ?? '')).toBe(0n);
    expect(carried.filter((p) => p.data.arcId === unfunded?.arcId)).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({ day: seeded.day, reason: 'below what can land' }),
      }),
    ]);
  });

  it('delivers session.flagged once when a save takes a session over the risk threshold', async () => {
    const dev = await createDeveloper();
    const game = await registerGame(dev, { maxScorePerSession: 10 });
    const { r, secret } = await subscribe(dev, game.id);
    const player = `sol:${bs58.encode(randomBytes(32))}`; // a wallet address
    const save = () =>
      batchSavePoints(
        { scheme: 'hmac', userId: dev.arcId },
        {
          gameId: game.id,
          entries: [{ playerId: player, points: 50, sessionId: 'greedy' }],
        },
        { directory: localDirectory },
      );
    await save();
    await save();
    await save(); // already flagged: no second event
    await relay();
    await waitFor(() => r.received.length >= 1, 10_000, 'session.flagged');
    await settle();
    const payloads = deliveredPayloads(r, secret);
    expect(payloads.map((p) => p.type)).toEqual(['session.flagged']);
    expect(payloads[0]?.data).toMatchObject({
      sessionId: 'greedy',
      threshold: 0.5,
      riskScore: expect.any(Number),
    });
    expect(Number(payloads[0]?.data.riskScore)).toBeGreaterThan(0.5);
  });

  it('delivers ownership.verified once when the domain is proved', async () => {
    const pages = new Map<string, string>();
    const server: Server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(pages.get(req.url ?? '') ?? '<html></html>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const dev = await createDeveloper();
      const page = `/${randomUUID()}`;
      const gameUrl = `http://localhost:${(server.address() as AddressInfo).port}${page}`;
      pages.set(page, `<html><head><meta name="arcadia-verification" content="${dev.apiKey}"></head></html>`);
      const game = await registerGame(dev, { gameUrl });
      const { r, secret } = await subscribe(dev, game.id);
      const path = `/games/claim-ownership/${game.id}`;
      const res = await invoke(claimOwnership, {
        method: 'POST',
        path,
        pathParameters: { gameId: game.id },
        headers: hmacHeaders(dev, 'POST', path),
      });
      expect(res.status, res.text).toBe(200);
      await relay();
      await waitFor(() => r.received.length >= 1, 10_000, 'ownership.verified');
      await settle(1_000);
      const payloads = deliveredPayloads(r, secret);
      expect(payloads.map((p) => [p.type, p.data])).toEqual([
        [
          'ownership.verified',
          {
            ownerId: dev.arcId,
            gameUrl,
            previousOwnerId: null,
            previousControllerId: dev.arcId,
            disabledEndpointIds: [],
          },
        ],
      ]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it("a change of control disables the previous controller's endpoints, says so in the event, and a new proof takes it back", async () => {
    const pages = new Map<string, string>();
    const server: Server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end(pages.get(req.url ?? '') ?? '<html></html>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const claim = (dev: Developer, gameId: string) => {
      const path = `/games/claim-ownership/${gameId}`;
      return invoke<{ data: { ownerId: string } }>(claimOwnership, {
        method: 'POST',
        path,
        pathParameters: { gameId },
        headers: hmacHeaders(dev, 'POST', path),
      });
    };
    const endpoints = async (dev: Developer, gameId: string) => {
      const path = `/webhooks/${gameId}/endpoints`;
      return invoke<{ data: Array<{ id: string; enabled: boolean; disabledReason: string | null }> }>(
        listEndpointsHandler,
        { method: 'GET', path, pathParameters: { gameId }, headers: hmacHeaders(dev, 'GET', path) },
      );
    };
    const enable = (dev: Developer, gameId: string, endpointId: string) => {
      const path = `/webhooks/${gameId}/endpoints/${endpointId}`;
      return invoke(updateEndpointHandler, {
        method: 'PATCH',
        path,
        pathParameters: { gameId, endpointId },
        headers: hmacHeaders(dev, 'PATCH', path),
        body: { enabled: true },
      });
    };
    /** The game's ownership.verified events as recorded (the outbox items), oldest first. */
    const ownershipEvents = async (gameId: string) => {
      const found: Payload[] = [];
      let start: Record<string, unknown> | undefined;
      do {
        const page = await dynamo().send(
          new ScanCommand({
            TableName: settings().WEBHOOKS_TABLE,
            FilterExpression: 'gameId = :g AND #t = :t',
            ExpressionAttributeNames: { '#t': 'type' },
            ExpressionAttributeValues: { ':g': gameId, ':t': 'ownership.verified' },
            ExclusiveStartKey: start,
          }),
        );
        found.push(...(page.Items ?? []).map((item) => JSON.parse(String(item.payload)) as Payload));
        start = page.LastEvaluatedKey;
      } while (start);
      return found.sort((a, b) => a.id.localeCompare(b.id));
    };
    try {
      const [alice, bob] = await Promise.all([createDeveloper(), createDeveloper()]);
      const page = `/${randomUUID()}`;
      pages.set(
        page,
        `<html><head><meta name="arcadia-verification" content="${alice.apiKey}"><meta name="arcadia-verification" content="${bob.apiKey}"></head></html>`,
      );
      const game = await registerGame(alice, {
        gameUrl: `http://localhost:${(server.address() as AddressInfo).port}${page}`,
      });
      const a = await subscribe(alice, game.id);
      const aliceEndpoint = (await endpoints(alice, game.id)).body.data[0]?.id ?? '';
      // Bob proves the domain: alice's endpoint is disabled in the same transaction, and she cannot enable it.
      expect((await claim(bob, game.id)).status).toBe(200);
      expect((await endpoints(bob, game.id)).body.data).toEqual([
        expect.objectContaining({ id: aliceEndpoint, enabled: false, disabledReason: 'control_changed' }),
      ]);
      expect((await enable(alice, game.id, aliceEndpoint)).status).toBe(403);
      await relay();
      await settle(1_000);
      const b = await subscribe(bob, game.id);
      const bobEndpoint =
        (await endpoints(bob, game.id)).body.data.find((e) => e.id !== aliceEndpoint)?.id ?? '';
      // Alice proves it again and takes it back: now bob's endpoint is the one disabled, and it hears nothing more.
      expect((await claim(alice, game.id)).body.data.ownerId).toBe(alice.arcId);
      await relay();
      await settle(2_000);
      expect(deliveredPayloads(b.r, b.secret)).toEqual([]);
      expect(deliveredPayloads(a.r, a.secret)).toEqual([]);
      expect((await endpoints(alice, game.id)).body.data).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ id: bobEndpoint, enabled: false, disabledReason: 'control_changed' }),
        ]),
      );
      expect((await ownershipEvents(game.id)).map((e) => e.data)).toEqual([
        expect.objectContaining({
          ownerId: bob.arcId,
          previousOwnerId: null,
          previousControllerId: alice.arcId,
          disabledEndpointIds: [aliceEndpoint],
        }),
        expect.objectContaining({
          ownerId: alice.arcId,
          previousOwnerId: bob.arcId,
          previousControllerId: bob.arcId,
          disabledEndpointIds: [bobEndpoint],
        }),
      ]);
      // The controller again, alice may enable her endpoint; bob no longer reaches the game's endpoints.
      expect((await enable(alice, game.id, aliceEndpoint)).status).toBe(200);
      expect((await enable(bob, game.id, bobEndpoint)).status).toBe(403);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('delivers launch.failed once when the launch state machine fails a job', async () => {
    const dev = await createDeveloper();
    const game = await registerGame(dev);
    const { r, secret } = await subscribe(dev, game.id);
    const job = newJob(
      { userId: dev.arcId },
      game,
      { emissionDays: 7, buyAmount: 0n, symbol: `WH${randomUUID().slice(0, 4).toUpperCase()}`, custom: true },
      { now: () => new Date(), publicApiUrl: process.env.PUBLIC_API_URL ?? '' },
    );
    expect(await createJob(job, { id: game.id, version: 1 })).toBe('created');
    // The state machine's Catch target, twice (a retried task): the job fails once, one event.
    const failure = { jobId: job.jobId, error: { Error: 'States.TaskFailed', Cause: 'boom' } };
    await failTask(failure);
    await failTask(failure);
    await relay();
    await waitFor(() => r.received.length >= 1, 10_000, 'launch.failed');
    await settle(1_000);
    const payloads = deliveredPayloads(r, secret);
    expect(payloads.map((p) => p.type)).toEqual(['launch.failed']);
    expect(payloads[0]?.data).toMatchObject({ jobId: job.jobId, reason: expect.any(String) });
  });
});
