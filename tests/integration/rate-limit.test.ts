import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { handler } from '../../functions/user/create-hmac-signature.js';
import { handler as getMe } from '../../functions/user/get-me.js';
import { makeRateLimiter } from '../../lib/ratelimit/limiter.js';
import { invoke } from '../helpers/http.js';
import { createDeveloper, hmacHeaders } from '../helpers/users.js';

const body = { secretKey: 'sk', method: 'GET', path: '/x', apiKey: '0b6f1a52-4c1e-4c8f-9a37-2f0d6c9e8b11' };

describe('rate limiting', () => {
  it('admits exactly 60 of 61 concurrent requests from one IP and answers the rest 429 with Retry-After', async () => {
    const sourceIp = `198.51.100.${Math.floor(Math.random() * 200) + 1}:${randomUUID()}`;
    const responses = await Promise.all(
      Array.from({ length: 61 }, () =>
        invoke(handler, { method: 'POST', path: '/user/hmac-signature', body, sourceIp }),
      ),
    );
    const ok = responses.filter((r) => r.status === 200);
    const limited = responses.filter((r) => r.status === 429);
    expect(ok).toHaveLength(60);
    expect(limited).toHaveLength(1);
    expect(limited[0]?.body).toMatchObject({ error: { code: 'RATE_LIMITED' } });
    expect(Number(limited[0]?.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited[0]?.headers['ratelimit-remaining']).toBe('0');
    expect(ok[0]?.headers['ratelimit-limit']).toBe('60');
  });

  it('keeps separate budgets per IP', async () => {
    const a = await invoke(handler, {
      method: 'POST',
      path: '/user/hmac-signature',
      body,
      sourceIp: `a-${randomUUID()}`,
    });
    const b = await invoke(handler, {
      method: 'POST',
      path: '/user/hmac-signature',
      body,
      sourceIp: `b-${randomUUID()}`,
    });
    expect(a.headers['ratelimit-remaining']).toBe('59');
    expect(b.headers['ratelimit-remaining']).toBe('59');
  });

  it('opens a new window once the old one has passed', async () => {
    let now = 1_000_000;
    const limiter = makeRateLimiter(() => now);
    const spec = { name: `test-${randomUUID()}`, key: 'ip' as const, limit: 2, windowSeconds: 1 };
    await limiter(spec, 'k');
    await limiter(spec, 'k');
    await expect(limiter(spec, 'k')).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    now += 1001;
    await expect(limiter(spec, 'k')).resolves.toMatchObject({ remaining: 1 });
  });
});

describe('rate limiting of failed authentication', () => {
  // A signature made with the wrong secret: the same 401 for an unknown key and a wrong signature.
  const badSignature = (apiKey: string) =>
    hmacHeaders({ apiKey, secretKey: `wrong-${randomUUID()}` }, 'GET', '/user/me');
  const getMeAs = (headers: Record<string, string>, sourceIp: string) =>
    invoke(getMe, { method: 'GET', path: '/user/me', headers, sourceIp });

  const expectLimited = (
    responses: Array<{ status: number; body: unknown; headers: Record<string, string> }>,
  ) => {
    expect(responses.filter((r) => r.status === 401)).toHaveLength(60);
    const limited = responses.filter((r) => r.status === 429);
    expect(limited).toHaveLength(1);
    expect(limited[0]?.body).toMatchObject({
      error: { code: 'RATE_LIMITED', requestId: expect.any(String) },
    });
    expect(Number(limited[0]?.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited[0]?.headers['ratelimit-limit']).toBe('60');
    expect(limited[0]?.headers['ratelimit-remaining']).toBe('0');
  };

  it('answers 429 to the 61st bad signature from one IP within a minute (each naming another API key)', async () => {
    const sourceIp = `198.51.100.${Math.floor(Math.random() * 200) + 1}:${randomUUID()}`;
    const responses = await Promise.all(
      Array.from({ length: 61 }, () => getMeAs(badSignature(randomUUID()), sourceIp)),
    );
    expectLimited(responses);
    // Requests without any credentials fail authentication too, and that IP's budget is spent.
    const anonymous = await invoke(getMe, { method: 'GET', path: '/user/me', sourceIp });
    expect(anonymous.status).toBe(429);
  });

  it('answers 429 to the 61st bad signature naming one API key, from as many IPs', async () => {
    const dev = await createDeveloper();
    const responses = await Promise.all(
      Array.from({ length: 61 }, () => getMeAs(badSignature(dev.apiKey), `203.0.113.9:${randomUUID()}`)),
    );
    expectLimited(responses);
    // Only failures spend these budgets: the key's owner, signing correctly, is not locked out.
    const owner = await getMeAs(hmacHeaders(dev, 'GET', '/user/me'), `203.0.113.9:${randomUUID()}`);
    expect(owner.status).toBe(200);
  });
});
