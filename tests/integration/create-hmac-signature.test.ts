import { describe, expect, it } from 'vitest';
import { handler } from '../../functions/user/create-hmac-signature.js';
import { signRequest } from '../../lib/core/hmac-signing.js';
import { invoke } from '../helpers/http.js';

const API_KEY = '0b6f1a52-4c1e-4c8f-9a37-2f0d6c9e8b11';
const call = (body: unknown, headers?: Record<string, string>) =>
  invoke(handler, { method: 'POST', path: '/user/hmac-signature', body, ...(headers ? { headers } : {}) });

describe('POST /user/hmac-signature', () => {
  it('returns the Authorization value for the given request', async () => {
    const res = await call({
      secretKey: 'sk',
      method: 'post',
      path: '/games',
      apiKey: API_KEY,
      timestamp: 1700000000000,
    });
    expect(res.status).toBe(200);
    const expected = signRequest({
      secretKey: 'sk',
      method: 'POST',
      path: '/games',
      timestamp: 1700000000000,
    });
    expect(res.body).toEqual({
      data: {
        signature: `HMAC-SHA256 apiKey=${API_KEY} signature=${expected} timestamp=1700000000000`,
        timestamp: 1700000000000,
        stringToSign: 'post\n/games\n1700000000000',
      },
    });
    expect(res.headers['x-request-id']).toMatch(/[0-9a-f-]{36}/);
  });

  it('signs the path decoded, whether it is given percent-encoded or not', async () => {
    const path = (period: string) => `/tournaments/g/t/periods/${period}/board`;
    const sign = async (given: string) =>
      (
        (await call({ secretKey: 'sk', method: 'GET', path: given, apiKey: API_KEY, timestamp: 1 })).body as {
          data: { signature: string; stringToSign: string };
        }
      ).data;
    const encoded = await sign(path('2026-12-02T00%3A44%3A00Z'));
    expect(encoded.stringToSign).toBe(`get\n${path('2026-12-02t00:44:00z')}\n1`);
    expect(await sign(path('2026-12-02T00:44:00Z'))).toEqual(encoded);
    expect((await sign('/x/caf%C3%A9%20bar')).stringToSign).toBe('get\n/x/café bar\n1');
  });

  it('signs with the current time in milliseconds by default', async () => {
    const before = Date.now();
    const res = await call({ secretKey: 'sk', method: 'GET', path: '/games/me', apiKey: API_KEY });
    const { timestamp, signature } = (res.body as { data: { timestamp: number; signature: string } }).data;
    expect(timestamp).toBeGreaterThanOrEqual(before);
    expect(timestamp).toBeLessThanOrEqual(Date.now());
    expect(signature).toContain(`timestamp=${timestamp}`);
  });

  it.each([
    [{ method: 'GET', path: '/x', apiKey: API_KEY }, 'secretKey'],
    [{ secretKey: 's', method: 'FETCH', path: '/x', apiKey: API_KEY }, 'method'],
    [{ secretKey: 's', method: 'GET', path: 'games', apiKey: API_KEY }, 'path'],
    [{ secretKey: 's', method: 'GET', path: '/x?y=1', apiKey: API_KEY }, 'path'],
    [{ secretKey: 's', method: 'GET', path: '/x', apiKey: 'not-a-uuid' }, 'apiKey'],
    [{ secretKey: 's', method: 'GET', path: '/x', apiKey: API_KEY, query: 'a=1' }, 'bodySha256'],
    [
      {
        secretKey: 's',
        method: 'GET',
        path: '/x',
        apiKey: API_KEY,
        bodySha256: 'a'.repeat(64),
        query: 'a#b',
      },
      'query',
    ],
  ])('rejects %j with a VALIDATION_ERROR naming %s', async (body, field) => {
    const res = await call(body);
    expect(res.status).toBe(400);
    const error = (
      res.body as { error: { code: string; details: Array<{ path: string }>; requestId: string } }
    ).error;
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details.map((d) => d.path)).toContain(field);
    expect(error.requestId).toBe(res.headers['x-request-id']);
  });

  it('rejects malformed JSON and a missing body with 400', async () => {
    const bad = await invoke(handler, {
      method: 'POST',
      path: '/user/hmac-signature',
      rawBody: '{"secretKey":',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.status).toBe(400);
    expect((bad.body as { error: { code: string } }).error.code).toBe('VALIDATION_ERROR');
    const empty = await invoke(handler, { method: 'POST', path: '/user/hmac-signature' });
    expect(empty.status).toBe(400);
  });

  it('rejects a non-JSON content type with 415 and an oversized body with 413', async () => {
    const form = await invoke(handler, {
      method: 'POST',
      path: '/user/hmac-signature',
      rawBody: 'a=b',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.status).toBe(415);
    expect((form.body as { error: { code: string } }).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const big = await call({
      secretKey: 'x'.repeat(1024 * 1024 + 1),
      method: 'GET',
      path: '/x',
      apiKey: API_KEY,
    });
    expect(big.status).toBe(413);
    expect((big.body as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('sends security headers and CORS headers', async () => {
    const res = await call(
      { secretKey: 'sk', method: 'GET', path: '/x', apiKey: API_KEY },
      { origin: 'https://example.com' },
    );
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });
});
