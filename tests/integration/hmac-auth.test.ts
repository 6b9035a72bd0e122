import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { handler as batchSave } from '../../functions/play-developer/batch-save-points.js';
import { handler as getMe } from '../../functions/user/get-me.js';
import { handler as resetSecret } from '../../functions/user/reset-secret.js';
import { signRequest } from '../../lib/core/hmac-signing.js';
import { registerGame } from '../helpers/games.js';
import { invoke } from '../helpers/http.js';
import { createDeveloper, hmacHeaders } from '../helpers/users.js';

const codeOf = (res: { body: unknown }) => (res.body as { error?: { code: string } }).error?.code;

describe('HMAC authentication', () => {
  it('accepts a valid signature, with or without commas', async () => {
    const dev = await createDeveloper();
    for (const commas of [false, true]) {
      const res = await invoke(getMe, {
        method: 'GET',
        path: '/user/me',
        headers: hmacHeaders(dev, 'GET', '/user/me', { commas }),
      });
      expect(res.status).toBe(200);
      expect((res.body as { data: { arcId: string; apiKey: string } }).data).toMatchObject({
        arcId: dev.arcId,
        apiKey: dev.apiKey,
      });
      expect(res.body).not.toHaveProperty('data.secretKey');
    }
  });

  it.each([
    ['no Authorization header', () => ({ 'x-auth-provider': 'hmac' }), 'UNAUTHORIZED'],
    [
      'no x-auth-provider',
      (h: Record<string, string>) => ({ authorization: h.authorization ?? '' }),
      'UNAUTHORIZED',
    ],
    [
      'a malformed header',
      () => ({ authorization: 'HMAC-SHA256 nonsense', 'x-auth-provider': 'hmac' }),
      'INVALID_SIGNATURE',
    ],
    [
      'a short signature',
      (h: Record<string, string>) => ({
        ...h,
        authorization: (h.authorization ?? '').replace(
          /signature=([0-9a-f]{64})/,
          (_m, sig: string) => `signature=${sig.slice(0, 20)}`,
        ),
      }),
      'INVALID_SIGNATURE',
    ],
    [
      'a flipped signature character',
      (h: Record<string, string>) => ({
        ...h,
        authorization: (h.authorization ?? '').replace(
          /signature=([0-9a-f])/,
          (_m, c: string) => `signature=${c === 'a' ? 'b' : 'a'}`,
        ),
      }),
      'INVALID_SIGNATURE',
    ],
  ])('rejects %s with 401', async (_name, mutate, code) => {
    const dev = await createDeveloper();
    const headers = mutate(hmacHeaders(dev, 'GET', '/user/me'));
    const res = await invoke(getMe, { method: 'GET', path: '/user/me', headers });
    expect(res.status).toBe(401);
    expect(codeOf(res)).toBe(code);
  });

  it('rejects timestamps in seconds and beyond ±5 minutes, accepts just inside', async () => {
    const dev = await createDeveloper();
    const at = (timestamp: number) =>
      invoke(getMe, {
        method: 'GET',
        path: '/user/me',
        headers: hmacHeaders(dev, 'GET', '/user/me', { timestamp }),
      });
    for (const timestamp of [Math.floor(Date.now() / 1000), Date.now() - 301_000, Date.now() + 301_000]) {
      const res = await at(timestamp);
      expect(res.status).toBe(401);
      expect(codeOf(res)).toBe('TIMESTAMP_OUT_OF_RANGE');
    }
    expect((await at(Date.now() - 290_000)).status).toBe(200);
    expect((await at(Date.now() + 290_000)).status).toBe(200);
  });

  it('rejects a signature made for another path, another method, or with the wrong key', async () => {
    const dev = await createDeveloper();
    const other = await createDeveloper();
    const cases = [
      hmacHeaders(dev, 'GET', '/user/me/stats'),
      hmacHeaders(dev, 'POST', '/user/me'),
      hmacHeaders({ apiKey: dev.apiKey, secretKey: other.secretKey }, 'GET', '/user/me'),
      hmacHeaders(
        { apiKey: '00000000-0000-4000-8000-000000000000', secretKey: dev.secretKey },
        'GET',
        '/user/me',
      ),
    ];
    for (const headers of cases) {
      const res = await invoke(getMe, { method: 'GET', path: '/user/me', headers });
      expect(res.status).toBe(401);
      expect(codeOf(res)).toBe('INVALID_SIGNATURE');
    }
  });

  it('treats method and path case-insensitively, as the signing rule lowercases them', async () => {
    const dev = await createDeveloper();
    const timestamp = Date.now();
    const signature = signRequest({ secretKey: dev.secretKey, method: 'get', path: '/USER/ME', timestamp });
    const headers = {
      authorization: `HMAC-SHA256 apiKey=${dev.apiKey} signature=${signature} timestamp=${timestamp}`,
      'x-auth-provider': 'hmac',
    };
    expect((await invoke(getMe, { method: 'GET', path: '/user/me', headers })).status).toBe(200);
  });

  it('accepts a signature of a non-GET request only once (replay)', async () => {
    const dev = await createDeveloper();
    const headers = hmacHeaders(dev, 'POST', '/user/reset-secret');
    const first = await invoke(resetSecret, { method: 'POST', path: '/user/reset-secret', headers });
    expect(first.status).toBe(200);
    const replay = await invoke(resetSecret, { method: 'POST', path: '/user/reset-secret', headers });
    expect(replay.status).toBe(401);
    expect(codeOf(replay)).toBe('INVALID_SIGNATURE');
  });

  describe('two different requests signed in the same millisecond', () => {
    const path = '/play/dev/batch-save-points';
    const saveBody = (gameId: string) =>
      JSON.stringify({ gameId, entries: [{ playerId: `sol:${bs58.encode(randomBytes(32))}`, points: 1 }] });
    const send = (headers: Record<string, string>, rawBody: string) =>
      invoke(batchSave, {
        method: 'POST',
        path,
        headers: { ...headers, 'content-type': 'application/json' },
        rawBody,
      });

    it('are both accepted without a body binding; an exact replay is refused', async () => {
      const dev = await createDeveloper();
      const game = await registerGame(dev);
      // SPEC's signature covers method, path and timestamp only: both requests carry the same one.
      const headers = hmacHeaders(dev, 'POST', path, { timestamp: Date.now() });
      const [a, b] = [saveBody(game.id), saveBody(game.id)];
      // The exact copy of `a` races the original: exactly one of the two is accepted.
      const responses = await Promise.all([send(headers, a), send(headers, b), send(headers, a)]);
      expect(responses[1]?.status).toBe(200);
      expect([responses[0]?.status, responses[2]?.status].sort()).toEqual([200, 401]);
      const refused = responses[0]?.status === 401 ? responses[0] : responses[2];
      expect(refused?.body).toMatchObject({
        error: { code: 'INVALID_SIGNATURE', message: 'Signature already used' },
      });
      const replay = await send(headers, b);
      expect(replay.status).toBe(401);
      expect(codeOf(replay)).toBe('INVALID_SIGNATURE');
    });

    it('are both accepted with x-content-sha256 (one signature each); an exact replay is refused', async () => {
      const dev = await createDeveloper();
      const game = await registerGame(dev);
      const timestamp = Date.now();
      const [a, b] = [saveBody(game.id), saveBody(game.id)];
      const signedA = hmacHeaders(dev, 'POST', path, { timestamp, body: a });
      const signedB = hmacHeaders(dev, 'POST', path, { timestamp, body: b });
      const [first, second] = await Promise.all([send(signedA, a), send(signedB, b)]);
      expect([first.status, second.status]).toEqual([200, 200]);
      const replay = await send(signedA, a);
      expect(replay.status).toBe(401);
      expect(replay.body).toMatchObject({
        error: { code: 'INVALID_SIGNATURE', message: 'Signature already used' },
      });
    });
  });

  it('checks the body against x-content-sha256 when the client binds it', async () => {
    const dev = await createDeveloper();
    const body = '{"a":1}';
    const headers = {
      ...hmacHeaders(dev, 'POST', '/user/reset-secret', { body }),
      'content-type': 'application/json',
    };
    const tampered = await invoke(resetSecret, {
      method: 'POST',
      path: '/user/reset-secret',
      headers,
      rawBody: '{"a":2}',
    });
    expect(tampered.status).toBe(401);
    expect(codeOf(tampered)).toBe('INVALID_SIGNATURE');
    const intact = await invoke(resetSecret, {
      method: 'POST',
      path: '/user/reset-secret',
      headers,
      rawBody: body,
    });
    expect(intact.status).toBe(200);
  });
});

describe('POST /user/reset-secret', () => {
  it('returns a new secret once; the old secret fails immediately and the new one works', async () => {
    const dev = await createDeveloper();
    const res = await invoke(resetSecret, {
      method: 'POST',
      path: '/user/reset-secret',
      headers: hmacHeaders(dev, 'POST', '/user/reset-secret'),
    });
    expect(res.status).toBe(200);
    const { secretKey, apiKey } = (res.body as { data: { secretKey: string; apiKey: string } }).data;
    expect(apiKey).toBe(dev.apiKey);
    expect(secretKey).not.toBe(dev.secretKey);
    const old = await invoke(getMe, {
      method: 'GET',
      path: '/user/me',
      headers: hmacHeaders(dev, 'GET', '/user/me'),
    });
    expect(old.status).toBe(401);
    const fresh = await invoke(getMe, {
      method: 'GET',
      path: '/user/me',
      headers: hmacHeaders({ ...dev, secretKey }, 'GET', '/user/me'),
    });
    expect(fresh.status).toBe(200);
  });

  it('requires authentication', async () => {
    const res = await invoke(resetSecret, { method: 'POST', path: '/user/reset-secret' });
    expect(res.status).toBe(401);
  });
});
