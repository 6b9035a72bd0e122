// Every outbound call takes its budget from the time the function has left (lib/core/deadline.ts): an upstream
// that rate-limits with a long Retry-After, or one that doesn't answer, is a 503 UPSTREAM_UNAVAILABLE with
// Retry-After inside the function's timeout, never a Lambda timeout (a bodiless 502/504) nor a retry past it.
// The route: a developer's save naming a did the API has never seen asks the identity provider synchronously.
// First: this file's own identity provider, whose fault switch it flips (see the helper).
import '../helpers/private-idp.js';
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { handler as batchSave } from '../../functions/play-developer/batch-save-points.js';
import { ANSWER_RESERVE_MS } from '../../lib/core/deadline.js';
import { registerGame } from '../helpers/games.js';
import { invoke } from '../helpers/http.js';
import { idpToken, setProviderFault } from '../helpers/idp.js';
import { createDeveloper, type Developer, hmacHeaders } from '../helpers/users.js';

const path = '/play/dev/batch-save-points';

/** A save of one unseen did, under a function timeout of `timeoutMs`; its answer and how long it took. */
const saveUnseenDid = async (
  dev: Developer,
  gameId: string,
  timeoutMs = 10_000,
  did = `did:local:deadline-${randomUUID().slice(0, 8)}`,
) => {
  const started = Date.now();
  const res = await invoke<{ error: { code: string }; data: unknown }>(batchSave, {
    method: 'POST',
    path,
    headers: hmacHeaders(dev, 'POST', path),
    body: { gameId, entries: [{ playerId: did, points: 1 }] },
    timeoutMs,
  });
  return { res, tookMs: Date.now() - started };
};

afterEach(async () => {
  await setProviderFault(null);
});

describe('an upstream the function cannot wait for', () => {
  it('a 429 asking for longer than a retry is worth is a 503 with its Retry-After, at once', async () => {
    const dev = await createDeveloper();
    const game = await registerGame(dev);
    await setProviderFault('limited', 120);
    const { res, tookMs } = await saveUnseenDid(dev, game.id);
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(res.body.error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(res.headers['retry-after']).toBe('120');
    expect(tookMs).toBeLessThan(3_000);
  }, 60_000);

  it('retries while the wait fits, then answers 503 with the wait before the function times out', async () => {
    const dev = await createDeveloper();
    const game = await registerGame(dev);
    // 5 s fits once in a 10 s function (one retry), not twice: the old loop waited 3 × 5 s, past the timeout.
    await setProviderFault('limited', 5);
    const { res, tookMs } = await saveUnseenDid(dev, game.id);
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(res.body.error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(res.headers['retry-after']).toBe('5');
    expect(tookMs).toBeGreaterThanOrEqual(5_000);
    expect(tookMs).toBeLessThan(10_000 - ANSWER_RESERVE_MS);
  }, 60_000);

  it('a call that does not answer is given only the time left: a 503 before a short function times out', async () => {
    const dev = await createDeveloper();
    const game = await registerGame(dev);
    await setProviderFault('hang');
    // The provider call's own limit is 5 s; a function with 3 s left gives it about 2 s.
    const { res, tookMs } = await saveUnseenDid(dev, game.id, 3_000);
    expect(res.status, JSON.stringify(res.body)).toBe(503);
    expect(res.body.error.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(tookMs).toBeLessThan(3_000);
  }, 60_000);

  it('the provider back, the same save succeeds', async () => {
    const dev = await createDeveloper();
    const game = await registerGame(dev);
    // A person who signed in at the provider: its did is known there, not yet here.
    const token = await idpToken(`deadline-${randomUUID().slice(0, 8)}`);
    const did = (
      JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString()) as { sub: string }
    ).sub;
    await setProviderFault('limited', 120);
    expect((await saveUnseenDid(dev, game.id, 10_000, did)).res.status).toBe(503);
    await setProviderFault(null);
    const { res } = await saveUnseenDid(dev, game.id, 10_000, did);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ data: { playerIdToArcId: { [did]: expect.any(String) } } });
  }, 60_000);
});
