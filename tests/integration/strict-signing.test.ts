// Strict signing, opt-in per API key: a strict key accepts only signatures that cover the body hash and the
// canonical query, so a signature seen in a log or in transit carries no other body or query. Over HTTP against
// serverless offline: the opt-in and its auth rules, the refusals, the SDK and the two signing helpers.
import { randomUUID } from 'node:crypto';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { PAGE_SIGNER } from '../../lib/api/reference/page.js';
import { formatAuthorization, sha256Hex, signRequest } from '../../lib/core/hmac-signing.js';
import { ensureUserForSubject } from '../../lib/user/service.js';
import { createArcadiaClient, unwrap } from '../../sdk/src/index.js';
import { gameBody, registerGame } from '../helpers/games.js';
import { apiBaseUrl } from '../helpers/http.js';
import { idpToken } from '../helpers/idp.js';
import { createDeveloper, type Developer } from '../helpers/users.js';

const EMPTY = sha256Hex('');

const base = apiBaseUrl;

interface Answer<T> {
  status: number;
  body: T & { error?: { code: string; message: string } };
}

/** One request to serverless offline; `query` is sent exactly as given. */
const send = async <T = Record<string, unknown>>(
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string; query?: string } = {},
): Promise<Answer<T>> => {
  const res = await fetch(`${base()}${path}${options.query ? `?${options.query}` : ''}`, {
    method,
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: options.body }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : {} };
};

type Form = 'basic' | 'bound' | 'strict';

/** HMAC headers of a request signed in one of the three forms (`signedQuery`: what the signer saw). */
const signed = (
  dev: Pick<Developer, 'apiKey' | 'secretKey'>,
  form: Form,
  request: { method: string; path: string; body?: string; signedQuery?: string },
): Record<string, string> => {
  const timestamp = Date.now();
  const bodySha256 = sha256Hex(request.body ?? '');
  const signature = signRequest({
    secretKey: dev.secretKey,
    method: request.method,
    path: request.path,
    timestamp,
    ...(form === 'basic' ? {} : { bodySha256 }),
    ...(form === 'strict' ? { query: request.signedQuery ?? '' } : {}),
  });
  return {
    authorization: formatAuthorization(dev.apiKey, signature, timestamp),
    'x-auth-provider': 'hmac',
    ...(form === 'basic' ? {} : { 'x-content-sha256': bodySha256 }),
  };
};

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

interface Profile {
  arcId: string;
  apiKey: string | null;
  strictSigning: boolean;
}

const setStrict = (token: string, strictSigning: boolean) =>
  send<{ data: Profile }>('PATCH', '/user/me', {
    headers: bearer(token),
    body: JSON.stringify({ strictSigning }),
  });

/**
 * A developer whose key requires strict signing (set through the API with its identity token), with games
 * registered before (the test helpers sign in SPEC's form).
 */
const strictDeveloper = async (games = 0): Promise<Developer & { token: string }> => {
  const dev = await createDeveloper();
  for (let i = 0; i < games; i++) await registerGame(dev);
  const token = await idpToken(dev.subject.slice('did:local:'.length));
  const res = await setStrict(token, true);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data).toMatchObject({ arcId: dev.arcId, apiKey: dev.apiKey, strictSigning: true });
  return { ...dev, token };
};

const myGames = (headers: Record<string, string>, query: string) =>
  send<{ data: Array<{ id: string }> }>('GET', '/games/me', { headers, query });

describe('a key that requires strict signing', () => {
  it('refuses unbound requests, a tampered query or body, and accepts a correct strict signature', async () => {
    const dev = await strictDeveloper(2);
    const path = '/games/me';

    // SPEC's form (no body hash) from the key's owner: valid, but not strict.
    const basic = await myGames(signed(dev, 'basic', { method: 'GET', path }), 'limit=1');
    expect(basic.status).toBe(401);
    expect(basic.body.error?.code).toBe('STRICT_SIGNING_REQUIRED');
    // Body bound but the query unsigned: still not strict.
    const bound = await myGames(signed(dev, 'bound', { method: 'GET', path }), 'limit=1');
    expect(bound.status).toBe(401);
    expect(bound.body.error?.code).toBe('STRICT_SIGNING_REQUIRED');

    // A strict signature of `limit=1` replayed with `limit=50`: refused.
    const leaked = signed(dev, 'strict', { method: 'GET', path, signedQuery: 'limit=1' });
    const tampered = await myGames(leaked, 'limit=50');
    expect(tampered.status).toBe(401);
    expect(tampered.body.error?.code).toBe('INVALID_SIGNATURE');
    const added = await myGames(leaked, 'limit=1&include_extra=true');
    expect(added.status).toBe(401);

    // The same query in another order and encoding canonicalizes the same: accepted.
    const ok = await myGames(
      signed(dev, 'strict', { method: 'GET', path, signedQuery: 'sort=asc&limit=1' }),
      'limit=1&sort=%61sc',
    );
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data).toHaveLength(1);

    // A POST: the body is bound; another body under the same signature is refused.
    const body = JSON.stringify(gameBody());
    const headers = signed(dev, 'strict', { method: 'POST', path: '/games', body });
    const other = await send('POST', '/games', { headers, body: JSON.stringify(gameBody()) });
    expect(other.status).toBe(401);
    expect(other.body.error?.code).toBe('INVALID_SIGNATURE');
    const created = await send('POST', '/games', { headers, body });
    expect(created.status, JSON.stringify(created.body)).toBe(201);

    // A wrong signature is INVALID_SIGNATURE whatever its form: only the key's owner learns it is strict.
    const forged = signed({ apiKey: dev.apiKey, secretKey: 'arc_sk_not_the_secret' }, 'basic', {
      method: 'GET',
      path,
    });
    expect((await myGames(forged, 'limit=1')).body.error?.code).toBe('INVALID_SIGNATURE');
  }, 60_000);

  it('is shown by GET /user/me, and set or cleared only with the identity-provider token', async () => {
    const dev = await strictDeveloper();
    const me = await send<{ data: Profile }>('GET', '/user/me', {
      headers: signed(dev, 'strict', { method: 'GET', path: '/user/me' }),
    });
    expect(me.status, JSON.stringify(me.body)).toBe(200);
    expect(me.body.data.strictSigning).toBe(true);

    // A leaked secret cannot turn strict signing off: PATCH /user/me refuses HMAC (even strictly signed).
    const body = JSON.stringify({ strictSigning: false });
    for (const headers of [
      signed(dev, 'strict', { method: 'PATCH', path: '/user/me', body }),
      signed(dev, 'basic', { method: 'PATCH', path: '/user/me' }),
      {},
      bearer('not.a.token'),
    ]) {
      const res = await send('PATCH', '/user/me', { headers, body });
      expect(res.status, JSON.stringify(res.body)).toBe(401);
    }
    expect(
      (await send<{ data: Profile }>('GET', '/user/me', { headers: bearer(dev.token) })).body.data,
    ).toMatchObject({
      strictSigning: true,
    });

    // The owner turns it off: SPEC's form is accepted again.
    const off = await setStrict(dev.token, false);
    expect(off.status).toBe(200);
    expect(off.body.data.strictSigning).toBe(false);
    expect(
      (await myGames(signed(dev, 'basic', { method: 'GET', path: '/games/me' }), 'limit=1')).status,
    ).toBe(200);

    // Resetting the secret keeps the choice.
    await setStrict(dev.token, true);
    const reset = await send<{ data: { secretKey: string } }>('POST', '/user/reset-secret', {
      headers: bearer(dev.token),
    });
    const rotated = { ...dev, secretKey: reset.body.data.secretKey };
    const basic = await myGames(signed(rotated, 'basic', { method: 'GET', path: '/games/me' }), '');
    expect(basic.body.error?.code).toBe('STRICT_SIGNING_REQUIRED');
    expect((await myGames(signed(rotated, 'strict', { method: 'GET', path: '/games/me' }), '')).status).toBe(
      200,
    );

    // Validation, and a user without an API key yet.
    const bad = await send('PATCH', '/user/me', {
      headers: bearer(dev.token),
      body: JSON.stringify({ strictSigning: 'yes' }),
    });
    expect(bad.status).toBe(400);
    const name = `nokey-${randomUUID().slice(0, 8)}`;
    await ensureUserForSubject(`did:local:${name}`);
    const nokey = await setStrict(await idpToken(name), true);
    expect(nokey.status).toBe(404);
  }, 60_000);
});

describe('a key that does not require strict signing', () => {
  it('accepts SPEC’s form, the body-bound form and the strict form, and shows strictSigning: false', async () => {
    const dev = await createDeveloper();
    await registerGame(dev);
    await registerGame(dev);
    for (const form of ['basic', 'bound', 'strict'] as const) {
      const res = await myGames(
        signed(dev, form, { method: 'GET', path: '/games/me', signedQuery: 'limit=1' }),
        'limit=1',
      );
      expect(res.status, form).toBe(200);
    }
    // Without strict signing the query is not covered by the basic form (SPEC's scheme, kept for these keys).
    const loose = await myGames(signed(dev, 'basic', { method: 'GET', path: '/games/me' }), 'limit=50');
    expect(loose.body.data.length).toBeGreaterThanOrEqual(2);
    const body = JSON.stringify(gameBody());
    expect(
      (
        await send('POST', '/games', {
          headers: signed(dev, 'bound', { method: 'POST', path: '/games', body }),
          body,
        })
      ).status,
    ).toBe(201);
    const me = await send<{ data: Profile }>('GET', '/user/me', {
      headers: signed(dev, 'basic', { method: 'GET', path: '/user/me' }),
    });
    expect(me.body.data.strictSigning).toBe(false);
  }, 60_000);
});

describe('clients that sign strictly', () => {
  it('the SDK’s server client works against a strict key, queries and bodies included', async () => {
    const dev = await strictDeveloper();
    const arcadia = createArcadiaClient({
      baseUrl: base(),
      hmac: { apiKey: dev.apiKey, secretKey: dev.secretKey },
    });
    const { game } = unwrap(await arcadia.POST('/games', { body: gameBody() as never }));
    unwrap(
      await arcadia.POST('/play/dev/batch-save-points', {
        body: { gameId: game.id, entries: [{ playerId: `x:strict_${randomUUID().slice(0, 8)}`, points: 5 }] },
      }),
    );
    const board = unwrap(
      await arcadia.GET('/play/dev/leaderboard/{gameId}', {
        params: { path: { gameId: game.id }, query: { period: 'alltime' } },
      }),
    );
    expect(board.entries).toHaveLength(1);
    const mine = unwrap(await arcadia.GET('/games/me', { params: { query: { limit: 1, sort: 'asc' } } }));
    expect(mine).toHaveLength(1);
    const me = unwrap(await arcadia.GET('/user/me'));
    expect(me.strictSigning).toBe(true);
  }, 60_000);

  it('POST /user/hmac-signature signs the strict form, which a strict key accepts', async () => {
    const dev = await strictDeveloper();
    const helped = await send<{ data: { signature: string; timestamp: number; stringToSign: string } }>(
      'POST',
      '/user/hmac-signature',
      {
        body: JSON.stringify({
          secretKey: dev.secretKey,
          method: 'GET',
          path: '/games/me',
          apiKey: dev.apiKey,
          bodySha256: EMPTY,
          query: 'sort=desc&limit=2',
        }),
      },
    );
    expect(helped.status, JSON.stringify(helped.body)).toBe(200);
    expect(helped.body.data.stringToSign).toBe(
      `get\n/games/me\n${helped.body.data.timestamp}\n${EMPTY}\nlimit=2&sort=desc`,
    );
    const headers = {
      authorization: helped.body.data.signature,
      'x-auth-provider': 'hmac',
      'x-content-sha256': EMPTY,
    };
    expect((await myGames(headers, 'limit=2&sort=desc')).status).toBe(200);
    expect((await myGames(headers, 'limit=3&sort=desc')).status).toBe(401);

    const missing = await send<{ error: { details: Array<{ path: string }> } }>(
      'POST',
      '/user/hmac-signature',
      {
        body: JSON.stringify({
          secretKey: 's',
          method: 'GET',
          path: '/games/me',
          apiKey: dev.apiKey,
          query: 'a=1',
        }),
      },
    );
    expect(missing.status).toBe(400);
    expect(missing.body.error?.code).toBe('VALIDATION_ERROR');
    expect(missing.body.error.details.map((d) => d.path)).toContain('bodySha256');
  }, 60_000);

  it('the reference page’s signer (its own JavaScript, run here on WebCrypto) works against a strict key', async () => {
    const dev = await strictDeveloper(1);
    const inputs: Record<string, string> = { 'hmac-api-key': dev.apiKey, 'hmac-secret': dev.secretKey };
    const page = {
      crypto: globalThis.crypto,
      TextEncoder,
      URL,
      URLSearchParams,
      encodeURIComponent,
      location: { href: `${base()}/api-reference` },
      document: { getElementById: (id: string) => ({ value: inputs[id] ?? '' }) },
    };
    const signHmac = runInNewContext(`${PAGE_SIGNER}; signHmac`, page) as (request: {
      url: string;
      method: string;
      headers: Record<string, string>;
      body?: string;
    }) => Promise<{ headers: Record<string, string> }>;

    const get = await signHmac({ url: `${base()}/games/me?sort=asc&limit=1`, method: 'get', headers: {} });
    expect(get.headers['x-content-sha256']).toBe(EMPTY);
    expect((await myGames(get.headers, 'sort=asc&limit=1')).status).toBe(200);
    expect((await myGames(get.headers, 'sort=asc&limit=9')).status).toBe(401);

    const body = JSON.stringify(gameBody());
    const post = await signHmac({ url: `${base()}/games`, method: 'post', headers: {}, body });
    expect((await send('POST', '/games', { headers: post.headers, body })).status).toBe(201);
  }, 60_000);
});
