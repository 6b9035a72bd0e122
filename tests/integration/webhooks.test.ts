// Webhook endpoints and their delivery, through the local stack: the routes in-process, the outbox relay and the
// delivery worker in-process on the stack's real queue (fauxqs) and table (DynamoDB Local), receivers as local http
// servers. Signatures are checked with the `standardwebhooks` library, not with our own code. The local stack
// retries after 1 s and cuts a POST at 2 s (scripts/stack/app.ts), so the schedule plays out in seconds.
import { randomUUID } from 'node:crypto';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  sideEffects as createDeps,
  handler as createEndpointHandler,
} from '../../functions/webhooks/create-webhook-endpoint.js';
import { handler as deleteEndpointHandler } from '../../functions/webhooks/delete-webhook-endpoint.js';
import { handler as listAttemptsHandler } from '../../functions/webhooks/list-webhook-attempts.js';
import { handler as listEndpointsHandler } from '../../functions/webhooks/list-webhook-endpoints.js';
import { handler as redeliverHandler } from '../../functions/webhooks/redeliver-webhook-event.js';
import { handler as rotateHandler } from '../../functions/webhooks/rotate-webhook-secret.js';
import { handler as testHandler } from '../../functions/webhooks/send-webhook-test.js';
import {
  sideEffects as updateDeps,
  handler as updateEndpointHandler,
} from '../../functions/webhooks/update-webhook-endpoint.js';
import { dynamo } from '../../lib/adapters/dynamodb.js';
import { checkFetchableUrl } from '../../lib/adapters/safe-fetch.js';
import { settings } from '../../lib/core/config.js';
import { outboxItem } from '../../lib/outbox/index.js';
import {
  DISABLE_AFTER_FAILURES,
  queueDeliveries,
  RELAY_CLAIM_SECONDS,
  relayEvent,
  relayPending,
} from '../../lib/webhooks/index.js';
import { recordEndpointOutcome } from '../../lib/webhooks/repository.js';
import { verifyWebhook, WebhookVerificationError } from '../../sdk/src/webhooks.js';
import { crashPlan, installCrashHooks, underCrashPlan } from '../helpers/crash.js';
import { registerGame } from '../helpers/games.js';
import { type Handler, invoke } from '../helpers/http.js';
import { createDeveloper, type Developer, hmacHeaders } from '../helpers/users.js';
import { type Receiver, startDeliveryWorker, startReceiver, waitFor } from '../helpers/webhooks.js';

type Body = Record<string, unknown> & {
  data: Record<string, unknown> & { id: string; secret: string };
  error: { code: string; message: string; details: Array<{ path: string; message: string }> };
  meta: { nextCursor: string | null };
};

let alice: Developer;
let bob: Developer;
let gameId: string;
let worker: Awaited<ReturnType<typeof startDeliveryWorker>>;
const receivers: Receiver[] = [];

beforeAll(async () => {
  installCrashHooks();
  [alice, bob] = await Promise.all([createDeveloper(), createDeveloper()]);
  gameId = (await registerGame(alice)).id;
  worker = await startDeliveryWorker();
});
afterAll(async () => {
  await worker?.stop();
  await Promise.all(receivers.map((r) => r.close()));
});

const receiver = async (behaviour?: Parameters<typeof startReceiver>[0]) => {
  const r = await startReceiver(behaviour);
  receivers.push(r);
  return r;
};

const base = (game: string) => `/webhooks/${game}/endpoints`;
const call = (
  handler: Handler,
  dev: Developer | undefined,
  method: string,
  path: string,
  pathParameters: Record<string, string>,
  body?: unknown,
  query?: Record<string, string>,
) =>
  invoke<Body>(handler, {
    method,
    path,
    pathParameters,
    headers: dev ? hmacHeaders(dev, method, path) : {},
    ...(body !== undefined ? { body } : {}),
    ...(query ? { query } : {}),
  });

const create = (dev: Developer | undefined, body: unknown, game = gameId) =>
  call(createEndpointHandler, dev, 'POST', base(game), { gameId: game }, body);
const update = (dev: Developer | undefined, endpointId: string, body: unknown, game = gameId) =>
  call(
    updateEndpointHandler,
    dev,
    'PATCH',
    `${base(game)}/${endpointId}`,
    { gameId: game, endpointId },
    body,
  );
const list = (dev: Developer | undefined, game = gameId) =>
  call(listEndpointsHandler, dev, 'GET', base(game), { gameId: game });
const remove = (dev: Developer | undefined, endpointId: string, game = gameId) =>
  call(deleteEndpointHandler, dev, 'DELETE', `${base(game)}/${endpointId}`, { gameId: game, endpointId });
const rotate = (dev: Developer | undefined, endpointId: string, game = gameId) =>
  call(rotateHandler, dev, 'POST', `${base(game)}/${endpointId}/rotate-secret`, { gameId: game, endpointId });
const sendTest = (dev: Developer | undefined, endpointId: string, game = gameId) =>
  call(testHandler, dev, 'POST', `${base(game)}/${endpointId}/test`, { gameId: game, endpointId });
const attempts = (
  dev: Developer | undefined,
  endpointId: string,
  query: Record<string, string> = {},
  game = gameId,
) =>
  call(
    listAttemptsHandler,
    dev,
    'GET',
    `${base(game)}/${endpointId}/attempts`,
    { gameId: game, endpointId },
    undefined,
    query,
  );
const redeliver = (dev: Developer | undefined, endpointId: string, eventId: string, game = gameId) =>
  call(redeliverHandler, dev, 'POST', `${base(game)}/${endpointId}/events/${eventId}/redeliver`, {
    gameId: game,
    endpointId,
    eventId,
  });

/** An endpoint of `game` at the receiver, subscribed to `types`; its id and secret. */
const endpointAt = async (r: Receiver, types: string[] = ['session.flagged'], game = gameId) => {
  const res = await create(alice, { url: r.url, eventTypes: types }, game);
  expect(res.status, res.text).toBe(201);
  return { id: res.body.data.id, secret: res.body.data.secret };
};

/** The `standardwebhooks` library's verification of what arrived: the parsed payload, or it throws. */
const verified = (secret: string, delivery: { headers: Record<string, unknown>; body: string }) =>
  new Webhook(secret).verify(delivery.body, {
    'webhook-id': String(delivery.headers['webhook-id']),
    'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
    'webhook-signature': String(delivery.headers['webhook-signature']),
  }) as { id: string; type: string; gameId: string; data: Record<string, unknown> };

/** Record an event as a change's transaction would, and run the relay. */
const emit = async (
  game = gameId,
  data = { sessionId: randomUUID(), arcId: randomUUID(), riskScore: 91, threshold: 80 },
) => {
  await dynamo().send(
    new TransactWriteCommand({ TransactItems: [outboxItem('session.flagged', game, data)] }),
  );
  await relayPending({ queue: queueDeliveries });
  return data;
};

describe('webhook endpoints', () => {
  it('registers an endpoint, shows its secret once, lists, updates, disables, enables and deletes it', async () => {
    const r = await receiver();
    const created = await create(alice, {
      url: r.url,
      eventTypes: ['payout.sent', 'claim.landed'],
      description: 'ops',
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toMatchObject({
      gameId,
      url: r.url,
      enabled: true,
      disabledReason: null,
      description: 'ops',
    });
    expect(created.body.data.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const id = created.body.data.id;

    const listed = await list(alice);
    expect(listed.status).toBe(200);
    const mine = (listed.body.data as unknown as Array<Record<string, unknown>>).find((e) => e.id === id);
    expect(mine).toMatchObject({ eventTypes: ['payout.sent', 'claim.landed'] });
    expect(mine).not.toHaveProperty('secret');
    expect(listed.text).not.toContain('whsec_');

    const disabled = await update(alice, id, { enabled: false });
    expect(disabled.body.data).toMatchObject({ enabled: false, disabledReason: 'manual' });
    expect((await sendTest(alice, id)).status).toBe(409);
    const enabled = await update(alice, id, {
      enabled: true,
      eventTypes: ['session.flagged'],
      description: null,
    });
    expect(enabled.body.data).toMatchObject({
      enabled: true,
      disabledReason: null,
      eventTypes: ['session.flagged'],
      description: null,
    });

    expect((await remove(alice, id)).body.data).toEqual({ id, deleted: true });
    expect((await remove(alice, id)).status).toBe(404);
    expect((await update(alice, id, { enabled: true })).status).toBe(404);
  });

  it('answers 401 unsigned and 403 to a developer who neither created nor owns the game, on every route', async () => {
    const r = await receiver();
    const { id } = await endpointAt(r);
    const eventId = 'evt_0mhxk2v3a9f1c2d3e4f5a6b7c';
    const routes = (dev: Developer | undefined) => [
      create(dev, { url: r.url, eventTypes: ['payout.sent'] }),
      list(dev),
      update(dev, id, { enabled: false }),
      remove(dev, id),
      rotate(dev, id),
      sendTest(dev, id),
      attempts(dev, id),
      redeliver(dev, id, eventId),
    ];
    for (const res of await Promise.all(routes(undefined))) expect(res.status, res.text).toBe(401);
    for (const res of await Promise.all(routes(bob))) expect(res.status, res.text).toBe(403);
    // A bad signature is a 401 too.
    const forged = await invoke<Body>(listEndpointsHandler, {
      method: 'GET',
      path: base(gameId),
      pathParameters: { gameId },
      headers: hmacHeaders({ apiKey: alice.apiKey, secretKey: bob.secretKey }, 'GET', base(gameId)),
    });
    expect(forged.status).toBe(401);
    // Nothing changed.
    expect((await list(alice)).body.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ id, enabled: true })]),
    );
  });

  it('answers 400 for bad input and 404 for an unknown game, endpoint or event', async () => {
    const r = await receiver();
    const { id } = await endpointAt(r);
    for (const body of [
      {},
      { url: r.url, eventTypes: [] },
      { url: r.url, eventTypes: ['no.such.event'] },
      { url: r.url, eventTypes: ['webhook.test'] },
      { url: 'ftp://files.example/x', eventTypes: ['payout.sent'] },
      { url: 'not a url', eventTypes: ['payout.sent'] },
      { url: 'http://10.0.0.1/hook', eventTypes: ['payout.sent'] },
      { url: 'http://169.254.169.254/latest/meta-data', eventTypes: ['payout.sent'] },
      { url: r.url, eventTypes: ['payout.sent'], description: 'x'.repeat(201) },
    ]) {
      const res = await create(alice, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    }
    expect((await update(alice, id, {})).status).toBe(400);
    expect((await update(alice, id, { url: 'https://192.168.1.10/x' })).status).toBe(400);
    expect((await attempts(alice, id, { cursor: 'bm90LWEtY3Vyc29y' })).status).toBe(400);
    expect((await attempts(alice, id, { limit: '0' })).status).toBe(400);
    const badParams = await call(listEndpointsHandler, alice, 'GET', '/webhooks/nope/endpoints', {
      gameId: 'nope',
    });
    expect(badParams.status).toBe(400);
    expect((await list(alice, randomUUID())).status).toBe(404);
    expect((await rotate(alice, randomUUID())).status).toBe(404);
    expect((await redeliver(alice, id, 'evt_0mhxk2v3a9f1c2d3e4f5a6b7c')).status).toBe(404);
    expect((await redeliver(alice, id, 'evt_bad')).status).toBe(400);
  });

  it('refuses 127.0.0.1, localhost, private ranges and plain http at registration in production mode', async () => {
    const saved = { ...createDeps };
    // Production: no loopback, https only (what SAFE_FETCH_ALLOW_LOOPBACK=false wires in lib/webhooks/wiring.ts).
    createDeps.checkUrl = (url) => checkFetchableUrl(url, { allowLoopback: false });
    createDeps.httpsOnly = true;
    try {
      for (const url of [
        'https://127.0.0.1/hooks',
        'https://localhost/hooks',
        'https://[::1]/hooks',
        'https://10.1.2.3/hooks',
        'https://172.16.0.5/hooks',
        'https://192.168.0.9/hooks',
        'https://169.254.169.254/hooks',
        'https://[::ffff:127.0.0.1]/hooks',
        'http://hooks.studio.example/in',
        'https://hooks.studio.example:8443/in',
      ]) {
        const res = await create(alice, { url, eventTypes: ['payout.sent'] });
        expect(res.status, url).toBe(400);
        expect(res.body.error.details[0]).toMatchObject({
          path: 'url',
          message: expect.stringMatching(/^refused: /),
        });
      }
    } finally {
      Object.assign(createDeps, saved);
    }
    const r = await receiver();
    const { id } = await endpointAt(r);
    const savedUpdate = { ...updateDeps };
    updateDeps.checkUrl = (url) => checkFetchableUrl(url, { allowLoopback: false });
    updateDeps.httpsOnly = true;
    try {
      expect((await update(alice, id, { url: 'https://127.0.0.1/x' })).status).toBe(400);
    } finally {
      Object.assign(updateDeps, savedUpdate);
    }
  });

  it('bounds the endpoints of a game, also under concurrent registrations', async () => {
    const game = (await registerGame(alice)).id;
    const r = await receiver();
    // A distinct body each: two identical signed writes in the same millisecond would be a replay (401).
    const register = () =>
      create(alice, { url: r.url, eventTypes: ['payout.sent'], description: randomUUID() }, game);
    const results = await Promise.all(Array.from({ length: 4 }, register));
    for (let i = 0; i < 8; i++) results.push(await register());
    expect(results.map((res) => res.status).sort()).toEqual([...Array(10).fill(201), 409, 409]);
    const refused = results.filter((res) => res.status === 409);
    expect(refused).toHaveLength(2);
    expect(refused[0]?.body.error.message).toMatch(/at most 10 webhook endpoints/);
    const first = results.find((res) => res.status === 201)?.body.data.id ?? '';
    expect((await remove(alice, first, game)).status).toBe(200);
    expect((await register()).status).toBe(201);
    expect((await register()).status).toBe(409);
  });
});

describe('webhook delivery', () => {
  it('delivers a test event signed per Standard Webhooks', async () => {
    const r = await receiver();
    const { id, secret } = await endpointAt(r);
    const sent = await sendTest(alice, id);
    expect(sent.status, sent.text).toBe(202);
    await waitFor(() => r.received.length === 1, 10_000, 'the test event');
    const [delivery] = r.received;
    if (!delivery) throw new Error('no delivery');
    expect(delivery.headers['content-type']).toBe('application/json');
    const payload = verified(secret, delivery);
    expect(payload).toMatchObject({
      id: sent.body.data.eventId,
      type: 'webhook.test',
      version: 1,
      gameId,
      data: { endpointId: id },
    });
    expect(delivery.headers['webhook-id']).toBe(payload.id);
    // Another secret does not verify it.
    expect(() => verified(`whsec_${Buffer.alloc(24, 1).toString('base64')}`, delivery)).toThrow();
    // The SDK's verifyWebhook agrees: the typed payload for the right secret, a refusal for a changed body.
    const typed = await verifyWebhook(delivery.body, delivery.headers as Record<string, string>, secret);
    expect(typed.type === 'webhook.test' && typed.data.endpointId).toBe(id);
    await expect(
      verifyWebhook(
        delivery.body.replace('test', 'tost'),
        delivery.headers as Record<string, string>,
        secret,
      ),
    ).rejects.toThrow(WebhookVerificationError);
  });

  it('retries a failing receiver with the same webhook-id: 3 failures, then the 4th attempt lands', async () => {
    const r = await receiver((n) => (n < 3 ? 500 : 200));
    const { id, secret } = await endpointAt(r);
    await emit();
    await waitFor(() => r.received.length === 4, 20_000, 'four attempts');
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(r.received).toHaveLength(4); // no fifth attempt after the success
    const ids = new Set(r.received.map((d) => d.headers['webhook-id']));
    expect(ids.size).toBe(1);
    for (const delivery of r.received) expect(verified(secret, delivery).type).toBe('session.flagged');
    // The log: newest first, the three failures with their next retry, then the success.
    const log = await attempts(alice, id);
    expect(log.status).toBe(200);
    const entries = log.body.data as unknown as Array<Record<string, unknown>>;
    expect(entries.map((e) => [e.attempt, e.ok, e.statusCode])).toEqual([
      [4, true, 200],
      [3, false, 500],
      [2, false, 500],
      [1, false, 500],
    ]);
    expect(entries[1]).toMatchObject({
      error: 'HTTP 500',
      nextRetryAt: expect.any(String),
      responseBody: 'answer 500',
    });
    expect(entries[0]).toMatchObject({ nextRetryAt: null, latencyMs: expect.any(Number) });
    // Paginated.
    const page1 = await attempts(alice, id, { limit: '3' });
    expect(page1.body.data).toHaveLength(3);
    const page2 = await attempts(alice, id, { limit: '3', cursor: page1.body.meta.nextCursor ?? '' });
    expect((page2.body.data as unknown as Array<{ attempt: number }>).map((e) => e.attempt)).toEqual([1]);
    expect(page2.body.meta.nextCursor).toBeNull();
  });

  it('cuts a hanging receiver at the timeout without delaying another endpoint', async () => {
    const game = (await registerGame(alice)).id;
    const hanging = await receiver(() => 'hang');
    const healthy = await receiver();
    const stuck = await endpointAt(hanging, ['session.flagged'], game);
    await endpointAt(healthy, ['session.flagged'], game);
    const started = Date.now();
    await emit(game);
    await waitFor(
      () => healthy.received.length === 1 && hanging.received.length >= 1,
      10_000,
      'both receivers',
    );
    // The healthy endpoint got it well before the hanging one's 2 s deadline ran out.
    expect((healthy.received[0]?.at ?? Infinity) - started).toBeLessThan(1_500);
    await waitFor(() => hanging.received.length >= 2, 15_000, 'a retry after the timeout');
    const log = await attempts(alice, stuck.id, {}, game);
    const first = (log.body.data as unknown as Array<Record<string, unknown>>).find((e) => e.attempt === 1);
    expect(first).toMatchObject({
      ok: false,
      statusCode: null,
      error: expect.stringMatching(/timed out after 2000 ms/),
    });
    expect(Number(first?.latencyMs)).toBeGreaterThanOrEqual(1_900);
    expect(Number(first?.latencyMs)).toBeLessThan(4_000);
    await update(alice, stuck.id, { enabled: false }, game);
  });

  it('signs with both the old and the new secret during the rotation grace period', async () => {
    const r = await receiver();
    const { id, secret: oldSecret } = await endpointAt(r);
    const rotated = await rotate(alice, id);
    expect(rotated.status, rotated.text).toBe(200);
    const newSecret = rotated.body.data.secret;
    expect(newSecret).not.toBe(oldSecret);
    const expires = Date.parse(String(rotated.body.data.previousSecretExpiresAt));
    expect(expires - Date.now()).toBeGreaterThan(23 * 3_600_000);
    await emit();
    await waitFor(() => r.received.length === 1, 10_000, 'the delivery');
    const [delivery] = r.received;
    if (!delivery) throw new Error('no delivery');
    expect(String(delivery.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verified(oldSecret, delivery).id).toBe(delivery.headers['webhook-id']);
    expect(verified(newSecret, delivery).id).toBe(delivery.headers['webhook-id']);
    // A second rotation drops the oldest secret at once.
    const again = await rotate(alice, id);
    await emit();
    await waitFor(() => r.received.length === 2, 10_000, 'the second delivery');
    const second = r.received[1];
    if (!second) throw new Error('no delivery');
    expect(() => verified(oldSecret, second)).toThrow();
    expect(verified(newSecret, second).type).toBe('session.flagged');
    expect(verified(again.body.data.secret, second).type).toBe('session.flagged');
  });

  it('ends the old secret at once with expireOldNow: the next delivery carries the new signature only', async () => {
    const game = (await registerGame(alice)).id;
    const r = await receiver();
    const { id, secret: leaked } = await endpointAt(r, ['session.flagged'], game);
    const path = `${base(game)}/${id}/rotate-secret`;
    const rotated = await call(
      rotateHandler,
      alice,
      'POST',
      path,
      { gameId: game, endpointId: id },
      undefined,
      { expireOldNow: 'true' },
    );
    expect(rotated.status, rotated.text).toBe(200);
    expect(rotated.body.data.previousSecretExpiresAt).toBeNull();
    await emit(game);
    await waitFor(() => r.received.length === 1, 10_000, 'the delivery');
    const [delivery] = r.received;
    if (!delivery) throw new Error('no delivery');
    expect(String(delivery.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(() => verified(leaked, delivery)).toThrow();
    expect(verified(rotated.body.data.secret, delivery).type).toBe('session.flagged');
    // Another developer cannot end the secret of someone else's endpoint.
    const stranger = await call(
      rotateHandler,
      bob,
      'POST',
      path,
      { gameId: game, endpointId: id },
      undefined,
      {
        expireOldNow: 'true',
      },
    );
    expect(stranger.status).toBe(403);
  });

  it('loses nothing when the process dies after the commit, before its immediate send, and the relay dies too', async () => {
    const game = (await registerGame(alice)).id;
    const r = await receiver();
    const { secret } = await endpointAt(r, ['session.flagged'], game);
    const data = { sessionId: randomUUID(), arcId: randomUUID(), riskScore: 97, threshold: 80 };
    const item = outboxItem('session.flagged', game, data);
    const eventId = String(item.Put?.Item?.eventId);
    // The change commits with its outbox item; the process dies before its immediate send (the next write).
    const change = crashPlan(1);
    await underCrashPlan(change, () => dynamo().send(new TransactWriteCommand({ TransactItems: [item] })));
    expect(change.writes).toEqual([expect.stringMatching(/^TransactWrite\(1\) /)]);
    expect(change.crashed).toBe(true);
    // A relay takes it, records the delivery, and dies before queueing it.
    const relay = crashPlan(2);
    await underCrashPlan(relay, () => relayEvent(eventId, { queue: queueDeliveries }));
    expect(relay.crashed).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(r.received).toHaveLength(0);
    // The dead relay's hold stops no run for good: the first run after it ran out delivers it, once.
    const later = () => new Date(Date.now() + (RELAY_CLAIM_SECONDS + 1) * 1000);
    expect(await relayEvent(eventId, { queue: queueDeliveries })).toBe(false); // still held
    expect(await relayEvent(eventId, { queue: queueDeliveries, now: later })).toBe(true);
    await waitFor(() => r.received.length === 1, 10_000, 'the delivery after the crash');
    await relayPending({ queue: queueDeliveries });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(r.received).toHaveLength(1);
    expect(verified(secret, r.received[0] as never).data).toEqual(data);
  });

  it('delivers an event as soon as its change commits, without waiting for a relay run', async () => {
    const game = (await registerGame(alice)).id;
    const r = await receiver();
    const { secret } = await endpointAt(r, ['session.flagged'], game);
    const latencies: number[] = [];
    for (let i = 0; i < 3; i++) {
      const data = { sessionId: randomUUID(), arcId: randomUUID(), riskScore: 90, threshold: 80 };
      const committed = Date.now();
      await dynamo().send(
        new TransactWriteCommand({ TransactItems: [outboxItem('session.flagged', game, data)] }),
      );
      await waitFor(() => r.received.length === i + 1, 5_000, 'the delivery without a relay run');
      latencies.push((r.received[i]?.at ?? Infinity) - committed);
      expect(verified(secret, r.received[i] as never).data).toEqual(data);
    }
    expect(Math.max(...latencies)).toBeLessThan(3_000);
    // The events left the outbox: the schedule's run sends none of them again.
    await relayPending({ queue: queueDeliveries });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(r.received).toHaveLength(3);
    // For comparison, the path without the immediate send (lost here): the event waits for the schedule's next
    // run (up to a minute in AWS, 2 s under npm run dev), which then takes this long to deliver it.
    const item = outboxItem('session.flagged', game, {
      sessionId: randomUUID(),
      arcId: randomUUID(),
      riskScore: 90,
      threshold: 80,
    });
    await underCrashPlan(crashPlan(1), () =>
      dynamo().send(new TransactWriteCommand({ TransactItems: [item] })),
    );
    const run = Date.now();
    await relayEvent(String(item.Put?.Item?.eventId), { queue: queueDeliveries });
    await waitFor(() => r.received.length === 4, 5_000, 'the delivery by the relay run');
    console.info(
      `webhooks: change committed → delivered: ${latencies.join(', ')} ms (immediate enqueue); ` +
        `without it: the wait for the relay schedule + ${(r.received[3]?.at ?? Infinity) - run} ms`,
    );
  });

  it('relays an event once when the writer’s message and the schedule’s run race for it', async () => {
    const game = (await registerGame(alice)).id;
    const r = await receiver();
    await endpointAt(r, ['session.flagged'], game);
    await endpointAt(await receiver(), ['session.flagged'], game);
    const item = outboxItem('session.flagged', game, {
      sessionId: randomUUID(),
      arcId: randomUUID(),
      riskScore: 95,
      threshold: 80,
    });
    const eventId = String(item.Put?.Item?.eventId);
    // Committed without its immediate send, so that the two relays below are the only ones.
    await underCrashPlan(crashPlan(1), () =>
      dynamo().send(new TransactWriteCommand({ TransactItems: [item] })),
    );
    const queued: string[] = [];
    const counting = {
      queue: async (deliveries: Parameters<typeof queueDeliveries>[0]) => {
        queued.push(...deliveries.map((d) => d.message.endpointId));
        await queueDeliveries(deliveries);
      },
    };
    const relayed = await Promise.all([relayEvent(eventId, counting), relayEvent(eventId, counting)]);
    expect(relayed.filter(Boolean)).toHaveLength(1);
    expect(await relayEvent(eventId, counting)).toBe(false);
    expect(queued).toHaveLength(2); // one first attempt per endpoint
    await waitFor(() => r.received.length === 1, 10_000, 'the delivery');
  });

  it('disables an endpoint after 20 failed attempts in a row; enabled again, its deliveries resume', async () => {
    const game = (await registerGame(alice)).id;
    const r = await receiver(() => 500);
    const { id, secret } = await endpointAt(r, ['session.flagged'], game);
    // 19 failures counted as earlier failed attempts would have counted them: the next failure is the 20th.
    for (let i = 1; i < DISABLE_AFTER_FAILURES; i++)
      await recordEndpointOutcome(game, id, false, new Date().toISOString());
    const endpointNow = async () =>
      (await list(alice, game)).body.data as unknown as Array<Record<string, unknown>>;
    expect((await endpointNow())[0]).toMatchObject({ enabled: true, consecutiveFailures: 19 });
    await emit(game);
    await waitFor(() => r.received.length === 1, 10_000, 'the failing attempt');
    const firstId = String(r.received[0]?.headers['webhook-id']);
    for (let i = 0; i < 100 && (await endpointNow())[0]?.enabled !== false; i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await endpointNow())[0]).toMatchObject({
      enabled: false,
      disabledReason: 'failing',
      consecutiveFailures: DISABLE_AFTER_FAILURES,
    });
    // Disabled: the retry that comes due is given up, and a new event is not sent to it.
    await emit(game);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(r.received).toHaveLength(1);
    expect((await redeliver(alice, id, firstId, game)).status).toBe(409);

    // The studio enables it: the run of failures starts over, and deliveries resume.
    r.behaviour = () => 200;
    const enabled = await update(alice, id, { enabled: true }, game);
    expect(enabled.status, enabled.text).toBe(200);
    expect(enabled.body.data).toMatchObject({ enabled: true, disabledReason: null, consecutiveFailures: 0 });
    const again = await redeliver(alice, id, firstId, game);
    expect(again.status, again.text).toBe(202);
    await emit(game);
    await waitFor(() => r.received.length === 3, 10_000, 'the redelivery and the new event');
    expect(r.received.map((d) => verified(secret, d).type)).toEqual([
      'session.flagged',
      'session.flagged',
      'session.flagged',
    ]);
    expect(r.received.filter((d) => d.headers['webhook-id'] === firstId)).toHaveLength(2);
    expect((await endpointNow())[0]).toMatchObject({ enabled: true, consecutiveFailures: 0 });
  });

  it('sends nothing for a change whose transaction rolled back', async () => {
    const game = (await registerGame(alice)).id;
    const r = await receiver();
    await endpointAt(r, ['session.flagged'], game);
    const failing = {
      ConditionCheck: {
        TableName: settings().WEBHOOKS_TABLE,
        Key: { pk: `NOPE#${randomUUID()}`, sk: 'NOPE' },
        ConditionExpression: 'attribute_exists(pk)',
      },
    };
    await expect(
      dynamo().send(
        new TransactWriteCommand({
          TransactItems: [
            outboxItem('session.flagged', game, { sessionId: 's', arcId: 'a', riskScore: 99, threshold: 80 }),
            failing,
          ],
        }),
      ),
    ).rejects.toThrow();
    await relayPending({ queue: queueDeliveries });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(r.received).toHaveLength(0);
  });

  it('redelivers one event on request, with the same webhook-id', async () => {
    const r = await receiver();
    const { id, secret } = await endpointAt(r);
    await emit();
    await waitFor(() => r.received.length === 1, 10_000, 'the delivery');
    const eventId = String(r.received[0]?.headers['webhook-id']);
    const res = await redeliver(alice, id, eventId);
    expect(res.status, res.text).toBe(202);
    expect(res.body.data).toEqual({ eventId, attempt: 2 });
    await waitFor(() => r.received.length === 2, 10_000, 'the redelivery');
    expect(r.received[1]?.headers['webhook-id']).toBe(eventId);
    expect(verified(secret, r.received[1] as never).id).toBe(eventId);
    // An event of another game is not this endpoint's to redeliver.
    const other = (await registerGame(alice)).id;
    const r2 = await receiver();
    await endpointAt(r2, ['session.flagged'], other);
    await emit(other);
    await waitFor(() => r2.received.length === 1, 10_000, 'the other game’s delivery');
    expect((await redeliver(alice, id, String(r2.received[0]?.headers['webhook-id']))).status).toBe(404);
  });
});
