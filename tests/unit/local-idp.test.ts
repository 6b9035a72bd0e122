import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalJWKSet, decodeProtectedHeader, type JWK, jwtVerify } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyIdpToken } from '../../lib/auth/idp-token.js';
import { type LocalIdp, startLocalIdp } from '../../scripts/idp/server.js';
import { fetchLocalToken } from '../../scripts/token.js';

interface Jwks {
  keys: (JWK & { kid: string })[];
}

const jwksOf = async (idp: LocalIdp): Promise<Jwks> => (await (await fetch(idp.jwksUrl)).json()) as Jwks;

const post = (idp: LocalIdp, path: string, body: string, contentType = 'application/json') =>
  fetch(`${idp.url}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body });

describe('local identity provider: endpoints', () => {
  let idp: LocalIdp;

  beforeAll(async () => {
    idp = await startLocalIdp({ port: 0 });
  });

  afterAll(async () => {
    await idp.stop();
  });

  it('binds a free port when asked for port 0 and derives its URLs from it', () => {
    expect(idp.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(idp.url).not.toMatch(/:0$/);
    expect(idp.issuer).toBe(idp.url);
    expect(idp.audience).toBe('arcadia-local');
    expect(idp.jwksUrl).toBe(`${idp.url}/.well-known/jwks.json`);
  });

  it('publishes one ES256 public key with a kid and no private fields', async () => {
    const { keys } = await jwksOf(idp);
    expect(keys).toHaveLength(1);
    const [key] = keys;
    expect(key).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(key?.kid).toEqual(expect.any(String));
    for (const field of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'k']) expect(key).not.toHaveProperty(field);
  });

  it('serves an OpenID configuration pointing at its JWKS', async () => {
    const response = await fetch(`${idp.url}/.well-known/openid-configuration`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      issuer: idp.issuer,
      jwks_uri: idp.jwksUrl,
      token_endpoint: `${idp.url}/token`,
      id_token_signing_alg_values_supported: ['ES256'],
    });
  });

  it('issues a token for a name, with the standard claims and a kid header', async () => {
    const response = await post(idp, '/token', JSON.stringify({ name: 'alice' }));
    expect(response.status).toBe(200);
    const body = (await response.json()) as { token: string; subject: string; expiresAt: string };
    expect(body.subject).toBe('did:local:alice');
    const { keys } = await jwksOf(idp);
    expect(decodeProtectedHeader(body.token)).toEqual({ alg: 'ES256', kid: keys[0]?.kid, typ: 'JWT' });
    const { payload } = await jwtVerify(body.token, createLocalJWKSet({ keys }), {
      issuer: idp.issuer,
      audience: 'arcadia-local',
      algorithms: ['ES256'],
    });
    expect(payload.sub).toBe('did:local:alice');
    expect(payload.nbf).toBe(payload.iat);
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(3600);
    expect(new Date(body.expiresAt).getTime()).toBe((payload.exp ?? 0) * 1000);
  });

  it('maps a name to the same subject every time and honours expiresInSeconds', async () => {
    const response = await post(idp, '/token', JSON.stringify({ name: 'bob_2', expiresInSeconds: 60 }));
    const body = (await response.json()) as { token: string; subject: string };
    expect(body.subject).toBe('did:local:bob_2');
    const verified = await verifyIdpToken(body.token, idp);
    expect(verified.subject).toBe('did:local:bob_2');
    expect(Number(verified.claims.exp) - Number(verified.claims.iat)).toBe(60);
  });

  it('issues a token for a did subject', async () => {
    const response = await post(idp, '/token', JSON.stringify({ subject: 'did:local:carol' }));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ subject: 'did:local:carol' });
  });

  it.each([
    ['an upper-case name', { name: 'Alice' }],
    ['a name with a space', { name: 'al ice' }],
    ['a name with punctuation', { name: 'alice!' }],
    ['an empty name', { name: '' }],
    ['a name over 64 characters', { name: 'a'.repeat(65) }],
    ['a numeric name', { name: 42 }],
    ['a subject that is not a did', { subject: 'alice' }],
    ['both name and subject', { name: 'alice', subject: 'did:local:alice' }],
    ['neither name nor subject', {}],
    ['an unknown field', { name: 'alice', admin: true }],
    ['a zero lifetime', { name: 'alice', expiresInSeconds: 0 }],
    ['a fractional lifetime', { name: 'alice', expiresInSeconds: 1.5 }],
    ['an array', ['alice']],
  ])('answers 400 VALIDATION_ERROR for %s', async (_name, body) => {
    const response = await post(idp, '/token', JSON.stringify(body));
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toBe('application/json');
    const json = (await response.json()) as { error: { code: string; message: string; details: unknown[] } };
    expect(json.error.code).toBe('VALIDATION_ERROR');
    expect(json.error.details.length).toBeGreaterThan(0);
  });

  it('answers 400 for a body that is not JSON', async () => {
    const response = await post(idp, '/token', 'name=alice', 'application/x-www-form-urlencoded');
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: 'VALIDATION_ERROR', message: 'Request body must be JSON' },
    });
  });

  it('answers 413 for an oversized body', async () => {
    const response = await post(idp, '/token', JSON.stringify({ name: 'a'.repeat(20_000) }));
    expect(response.status).toBe(413);
  });

  it('answers 404 for an unknown path and 405 for a wrong method', async () => {
    expect((await fetch(`${idp.url}/nope`)).status).toBe(404);
    const wrongMethod = await fetch(`${idp.url}/token`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('POST');
  });

  it('refuses to sign for something that is neither a name nor a did', async () => {
    await expect(idp.issueToken('Not A Name')).rejects.toThrow(/Not a local user name or did/);
  });
});

describe('local identity provider: key persistence', () => {
  const dirs: string[] = [];
  const started: LocalIdp[] = [];

  const start = async (opts: Parameters<typeof startLocalIdp>[0]) => {
    const idp = await startLocalIdp(opts);
    started.push(idp);
    return idp;
  };

  afterEach(async () => {
    await Promise.all(started.splice(0).map((idp) => idp.stop()));
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('keeps its key pair in dataDir, so tokens survive a restart', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'arcadia-idp-')), 'nested');
    dirs.push(dataDir);
    const first = await start({ port: 0, dataDir });
    const [firstKey] = (await jwksOf(first)).keys;
    const oldToken = await first.issueToken('alice');
    const keyFile = join(dataDir, 'idp-key.json');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(keyFile, 'utf8'))).toMatchObject({
      kid: firstKey?.kid,
      d: expect.any(String),
    });
    const port = Number(new URL(first.url).port);
    await first.stop();
    started.splice(0);

    // Same port, so the issuer is unchanged.
    const second = await start({ port, dataDir });
    expect(second.issuer).toBe(first.issuer);
    const { keys } = await jwksOf(second);
    expect(keys).toEqual([firstKey]);
    const { payload } = await jwtVerify(oldToken, createLocalJWKSet({ keys }), {
      issuer: second.issuer,
      audience: second.audience,
      algorithms: ['ES256'],
    });
    expect(payload.sub).toBe('did:local:alice');
    await expect(verifyIdpToken(oldToken, second)).resolves.toMatchObject({ subject: 'did:local:alice' });
  });

  it('generates a fresh key on every start without dataDir', async () => {
    const a = await start({ port: 0 });
    const b = await start({ port: 0 });
    expect((await jwksOf(a)).keys[0]?.kid).not.toBe((await jwksOf(b)).keys[0]?.kid);
  });

  it('refuses a corrupt key file instead of replacing it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'arcadia-idp-'));
    dirs.push(dataDir);
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dataDir, 'idp-key.json'), JSON.stringify({ kty: 'oct', k: 'abc' }));
    await expect(startLocalIdp({ port: 0, dataDir })).rejects.toThrow(/not an ES256 private JWK/);
  });
});

describe('npm run token (fetchLocalToken)', () => {
  it('fetches a token for a name from the running provider', async () => {
    const idp = await startLocalIdp({ port: 0 });
    try {
      const { token, subject } = await fetchLocalToken('dave', idp.url);
      expect(subject).toBe('did:local:dave');
      await expect(verifyIdpToken(token, idp)).resolves.toMatchObject({ subject: 'did:local:dave' });
      await expect(fetchLocalToken('Dave!', idp.url)).rejects.toThrow(
        /refused: Invalid token request \(name:/,
      );
    } finally {
      await idp.stop();
    }
  });

  it('says to start `npm run dev` when the provider is not running', async () => {
    const idp = await startLocalIdp({ port: 0 });
    await idp.stop();
    await expect(fetchLocalToken('dave', idp.url)).rejects.toThrow(
      /not reachable.*start `npm run dev` first/,
    );
  });
});
