import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { generateKeyPair, type JWK, SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { bearerTokenOf, type IdpConfig, verifyIdpToken } from '../../lib/auth/idp-token.js';
import { AppError } from '../../lib/core/errors.js';
import { logger } from '../../lib/core/logger.js';
import { type LocalIdp, startLocalIdp } from '../../scripts/idp/server.js';

let idp: LocalIdp;
let config: IdpConfig;
let publicJwk: JWK & { kid: string };

beforeAll(async () => {
  idp = await startLocalIdp({ port: 0 });
  config = { issuer: idp.issuer, audience: idp.audience, jwksUrl: idp.jwksUrl };
  const jwks = (await (await fetch(idp.jwksUrl)).json()) as { keys: (JWK & { kid: string })[] };
  [publicJwk] = jwks.keys as [JWK & { kid: string }];
});

afterAll(async () => {
  await idp.stop();
});

const now = () => Math.floor(Date.now() / 1000);
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const goodClaims = () => ({
  iss: idp.issuer,
  aud: idp.audience,
  sub: 'did:local:mallory',
  iat: now(),
  exp: now() + 600,
});

/** The rejection of a token: always UNAUTHORIZED with the generic message; returns the short reason. */
const rejectionReason = async (token: string, cfg: IdpConfig = config): Promise<string | undefined> => {
  const error = await verifyIdpToken(token, cfg).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  const appError = error as AppError;
  expect(appError.code).toBe('UNAUTHORIZED');
  expect(appError.status).toBe(401);
  expect(appError.message).toBe('Invalid or expired bearer token');
  expect(JSON.stringify(appError.details)).not.toContain(token.slice(0, 40) || '\u0000');
  return appError.details[0]?.message;
};

describe('verifyIdpToken', () => {
  it('accepts a token of the local identity provider', async () => {
    const token = await idp.issueToken('alice', { claims: { email: 'alice@example.com' } });
    const verified = await verifyIdpToken(token, config);
    expect(verified.subject).toBe('did:local:alice');
    expect(verified.claims).toMatchObject({
      iss: idp.issuer,
      aud: 'arcadia-local',
      sub: 'did:local:alice',
      email: 'alice@example.com',
    });
  });

  it('accepts a did subject from another provider', async () => {
    const token = await idp.issueToken('did:privy:cm3x9abc');
    expect((await verifyIdpToken(token, config)).subject).toBe('did:privy:cm3x9abc');
  });

  it('tolerates a few seconds of clock skew', async () => {
    const token = await idp.issueToken('alice', { claims: { nbf: now() + 3, exp: now() - 2 } });
    await expect(verifyIdpToken(token, config)).resolves.toMatchObject({ subject: 'did:local:alice' });
  });

  it('rejects an unsigned alg:none token', async () => {
    const token = `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(goodClaims())}.`;
    expect(await rejectionReason(token)).toBe('signing algorithm not allowed');
  });

  it('rejects an HS256 token keyed with the public key (algorithm confusion)', async () => {
    const publicKey = createPublicKey({ key: publicJwk as JsonWebKey, format: 'jwk' });
    const secrets = [
      Buffer.from(publicKey.export({ type: 'spki', format: 'pem' })),
      publicKey.export({ type: 'spki', format: 'der' }),
      Buffer.from(JSON.stringify(publicJwk)),
    ];
    for (const secret of secrets) {
      const token = await new SignJWT(goodClaims())
        .setProtectedHeader({ alg: 'HS256', kid: publicJwk.kid })
        .sign(new Uint8Array(secret));
      expect(await rejectionReason(token)).toBe('signing algorithm not allowed');
    }
  });

  it('rejects a wrong issuer', async () => {
    const token = await idp.issueToken('alice', { claims: { iss: 'https://evil.example' } });
    expect(await rejectionReason(token)).toBe('invalid iss claim');
  });

  it('rejects a wrong audience', async () => {
    const token = await idp.issueToken('alice', { claims: { aud: 'some-other-app' } });
    expect(await rejectionReason(token)).toBe('invalid aud claim');
  });

  it('rejects an expired token', async () => {
    const token = await idp.issueToken('alice', { expiresInSeconds: -60 });
    expect(await rejectionReason(token)).toBe('token expired');
  });

  it('rejects a token that is not yet valid', async () => {
    const token = await idp.issueToken('alice', { claims: { nbf: now() + 120 } });
    expect(await rejectionReason(token)).toBe('token not yet valid');
  });

  it('rejects a token without exp', async () => {
    const token = await idp.issueToken('alice', { claims: { exp: undefined } });
    expect(await rejectionReason(token)).toBe('exp claim missing');
  });

  it('rejects a token signed by another key under an unknown kid', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const token = await new SignJWT(goodClaims())
      .setProtectedHeader({ alg: 'ES256', kid: 'not-in-the-jwks' })
      .sign(privateKey);
    expect(await rejectionReason(token)).toBe('unknown signing key');
  });

  it('rejects a token signed by another key under the known kid', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const token = await new SignJWT(goodClaims())
      .setProtectedHeader({ alg: 'ES256', kid: publicJwk.kid })
      .sign(privateKey);
    expect(await rejectionReason(token)).toBe('signature verification failed');
  });

  it('rejects a tampered payload', async () => {
    const [header, , signature] = (await idp.issueToken('alice')).split('.');
    const forged = `${header}.${b64url({ ...goodClaims(), sub: 'did:local:admin' })}.${signature}`;
    expect(await rejectionReason(forged)).toBe('signature verification failed');
  });

  it.each([
    ['garbage', 'not-a-jwt'],
    ['two parts', 'abc.def'],
    ['bad base64', '!!!.###.$$$'],
    ['empty', ''],
    ['oversized', `${'a'.repeat(9000)}.b.c`],
  ])('rejects a malformed token (%s)', async (_name, token) => {
    expect(await rejectionReason(token)).toBe('malformed token');
  });

  it.each(['alice', 'did:Local:alice', 'did:local:', '3f2504e0-4f89-41d3-9a0c-0305e82c3301'])(
    'rejects the subject %j (not a did)',
    async (sub) => {
      const token = await idp.issueToken('alice', { claims: { sub } });
      expect(await rejectionReason(token)).toBe('subject is not did:<idp>:<id>');
    },
  );

  it('rejects a token without sub', async () => {
    const token = await idp.issueToken('alice', { claims: { sub: undefined } });
    expect(await rejectionReason(token)).toBe('sub claim missing');
  });

  it('answers 401 when the JWKS cannot be fetched, and logs a warning without the token', async () => {
    const warn = vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
    try {
      const token = await idp.issueToken('alice');
      const unreachable = { ...config, jwksUrl: 'http://127.0.0.1:1/.well-known/jwks.json' };
      expect(await rejectionReason(token, unreachable)).toBe('token could not be verified');
      expect(warn).toHaveBeenCalledOnce();
      expect(JSON.stringify(warn.mock.calls)).not.toContain(token);
    } finally {
      warn.mockRestore();
    }
  });
});

describe('bearerTokenOf', () => {
  const unauthorized = (headers: Record<string, string | undefined>) => {
    try {
      bearerTokenOf(headers);
    } catch (error) {
      expect(error).toBeInstanceOf(AppError);
      return (error as AppError).code;
    }
    return 'accepted';
  };

  it('extracts the token, whatever the case of the scheme and header name', () => {
    expect(bearerTokenOf({ authorization: 'Bearer abc.def-_.ghi' })).toBe('abc.def-_.ghi');
    expect(bearerTokenOf({ Authorization: 'bearer abc' })).toBe('abc');
    expect(bearerTokenOf({ authorization: 'BEARER  abc==' })).toBe('abc==');
  });

  it.each([
    ['missing header', {}],
    ['empty header', { authorization: '' }],
    ['no token', { authorization: 'Bearer' }],
    ['no token after space', { authorization: 'Bearer ' }],
    ['two tokens', { authorization: 'Bearer abc def' }],
    ['duplicate headers joined', { authorization: 'Bearer abc, Bearer def' }],
    ['other scheme', { authorization: 'Basic YWxpY2U6cHc=' }],
    ['HMAC scheme', { authorization: 'HMAC-SHA256 apiKey=a signature=b timestamp=1' }],
    ['token only', { authorization: 'abc.def.ghi' }],
    ['over 8 KB', { authorization: `Bearer ${'a'.repeat(8 * 1024 + 1)}` }],
    ['control character', { authorization: 'Bearer abc\u0000' }],
  ])('401 on %s', (_name, headers) => {
    expect(unauthorized(headers)).toBe('UNAUTHORIZED');
  });
});

describe('idpConfigFromEnv', () => {
  // Fresh modules on both sides: another file of the worker may have read the settings already (isolate: false).
  beforeEach(() => vi.resetModules());
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  const load = async () => (await import('../../lib/auth/idp-token.js')).idpConfigFromEnv;

  it('reads IDP_ISSUER, IDP_AUDIENCE and IDP_JWKS_URL once, with the other settings', async () => {
    vi.stubEnv('IDP_ISSUER', 'http://127.0.0.1:8090');
    vi.stubEnv('IDP_AUDIENCE', 'arcadia-local');
    vi.stubEnv('IDP_JWKS_URL', 'http://127.0.0.1:8090/.well-known/jwks.json');
    const idpConfigFromEnv = await load();
    const first = idpConfigFromEnv();
    expect(first).toEqual({
      issuer: 'http://127.0.0.1:8090',
      audience: 'arcadia-local',
      jwksUrl: 'http://127.0.0.1:8090/.well-known/jwks.json',
    });
    vi.stubEnv('IDP_AUDIENCE', 'changed');
    expect(idpConfigFromEnv()).toBe(first);
  });

  it('fails fast naming what is missing or invalid', async () => {
    vi.stubEnv('IDP_ISSUER', 'http://127.0.0.1:8090');
    vi.stubEnv('IDP_AUDIENCE', '');
    vi.stubEnv('IDP_JWKS_URL', 'not a url');
    const idpConfigFromEnv = await load();
    expect(() => idpConfigFromEnv()).toThrow(/Invalid configuration: IDP_AUDIENCE: .*; IDP_JWKS_URL: /);
  });
});
