import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { handler as getMe } from '../../functions/user/get-me.js';
import { handler as getMyStats } from '../../functions/user/get-my-stats.js';
import { invoke } from '../helpers/http.js';
import { idpToken } from '../helpers/idp.js';
import { hmacHeaders } from '../helpers/users.js';

interface Profile {
  arcId: string;
  subject: string;
  apiKey: string;
  secretKey?: string;
  walletAddress: string;
  identifiers: string[];
}

describe('GET /user/me', () => {
  it('creates the user and API key on the first bearer call and shows the secret only then', async () => {
    const name = `alice-${randomUUID().slice(0, 8)}`;
    const token = await idpToken(name);
    const first = await invoke<{ data: Profile }>(getMe, {
      method: 'GET',
      path: '/user/me',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(first.status).toBe(200);
    const me = first.body.data;
    expect(me.subject).toBe(`did:local:${name}`);
    expect(me.apiKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(me.secretKey).toMatch(/^arc_sk_/);
    expect(me.identifiers).toContain(`did:local:${name}`);
    expect(me.walletAddress).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);

    const second = await invoke<{ data: Profile }>(getMe, {
      method: 'GET',
      path: '/user/me',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(second.body.data.arcId).toBe(me.arcId);
    expect(second.body.data.apiKey).toBe(me.apiKey);
    expect(second.body.data).not.toHaveProperty('secretKey');

    // The secret returned once really signs requests.
    const signed = await invoke<{ data: Profile }>(getMe, {
      method: 'GET',
      path: '/user/me',
      headers: hmacHeaders({ apiKey: me.apiKey, secretKey: me.secretKey ?? '' }, 'GET', '/user/me'),
    });
    expect(signed.status).toBe(200);
    expect(signed.body.data.arcId).toBe(me.arcId);
  });

  it.each([
    ['no credentials', {}],
    ['a garbage bearer token', { authorization: 'Bearer not.a.jwt' }],
    ['a non-bearer scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
  ])('answers 401 UNAUTHORIZED for %s', async (_name, headers) => {
    const res = await invoke(getMe, { method: 'GET', path: '/user/me', headers });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: { code: 'UNAUTHORIZED' } });
  });
});

describe('GET /user/me/stats', () => {
  it('returns every counter, zero for a new user', async () => {
    const token = await idpToken(`stats-${randomUUID().slice(0, 8)}`);
    const res = await invoke(getMyStats, {
      method: 'GET',
      path: '/user/me/stats',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { gamesRegistered: 0, pointsSaved: 0, gameCoinsLaunched: 0 } });
  });

  it('requires authentication', async () => {
    const res = await invoke(getMyStats, { method: 'GET', path: '/user/me/stats' });
    expect(res.status).toBe(401);
  });
});
