// The identity provider's contract where the platform meets it at launch scale: the batch import on its own host
// (the provider's auth host; the local provider serves it only there) with single creations where it is not
// served, user paths encoded as the official client encodes them, the documented error codes, the authorization
// key's `wallet-api:` prefix, and the pace that keeps the import's creations under the provider's limit.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  PROVIDER_ERROR_CODES,
  ProviderApiError,
  providerRequest,
  userPath,
} from '../../lib/adapters/privy-api.js';
import { AppError } from '../../lib/core/errors.js';
import { remoteDirectory } from '../../lib/user/directory.js';
import { parseIdentifier } from '../../lib/user/identifiers.js';
import { nextSlot } from '../../lib/user/import-pace.js';
import { ImportDeferred, importDeferral } from '../../lib/user/importer.js';
import { type LocalIdp, startLocalIdp } from '../../scripts/idp/server.js';
import { LOCAL_APP_ID, LOCAL_APP_SECRET, LOCAL_AUTHORIZATION_KEY } from '../../scripts/idp/wallets.js';

/** The official client's path encoder (not among its package exports: loaded by file). */
const { encodeURIPath } = createRequire(import.meta.url)(
  '../../node_modules/@privy-io/node/internal/utils/path.js',
) as { encodeURIPath: (segment: string) => string };

const target = (idp: LocalIdp) => ({ base: idp.url, appId: LOCAL_APP_ID, appSecret: LOCAL_APP_SECRET });
const basic = `Basic ${Buffer.from(`${LOCAL_APP_ID}:${LOCAL_APP_SECRET}`).toString('base64')}`;
const tag = () => Math.random().toString(36).slice(2, 10);

/** A seeded generator (mulberry32), so every draw of the property test is reproducible. */
const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

describe('the batch import on its own host', () => {
  let idp: LocalIdp;
  beforeAll(async () => {
    idp = await startLocalIdp({ port: 0 });
  });
  afterAll(() => idp.stop());

  it('is served on the auth host API only: beside the wallet API it is a 404', async () => {
    const body = JSON.stringify({
      users: [{ linked_accounts: [{ type: 'email', address: `${tag()}@example.com` }] }],
    });
    const headers = {
      'content-type': 'application/json',
      authorization: basic,
      'privy-app-id': LOCAL_APP_ID,
    };
    const beside = await fetch(`${idp.url}/v1/users/batch`, { method: 'POST', headers, body });
    expect(beside.status).toBe(404);
    const there = await fetch(`${idp.url}/api/v1/users/batch`, { method: 'POST', headers, body });
    expect(there.status).toBe(200);
    const unauthenticated = await fetch(`${idp.url}/api/v1/users/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'privy-app-id': LOCAL_APP_ID },
      body,
    });
    expect(unauthenticated.status).toBe(401);
  });

  it('imports through IDP_IMPORT_API_URL: one request for the batch, each user with an embedded wallet', async () => {
    const directory = remoteDirectory(fetch, { target: target(idp), importBase: `${idp.url}/api` });
    const seen: string[] = [];
    const counting = remoteDirectory(
      async (input, init) => {
        seen.push(new URL(String(input)).pathname);
        return fetch(input, init);
      },
      { target: target(idp), importBase: `${idp.url}/api` },
    );
    const held = parseIdentifier(`email:${tag()}@example.com`);
    const [first] = await directory.importUsers([held]);
    const identifiers = [
      held,
      ...Array.from({ length: 4 }, () => parseIdentifier(`email:${tag()}@example.com`)),
    ];
    const results = await counting.importUsers(identifiers);
    expect(seen.filter((p) => p.endsWith('/users/batch'))).toEqual(['/api/v1/users/batch']);
    expect(seen).not.toContain('/v1/users');
    expect(results.every((r) => r.ok && r.user.subject && r.user.walletAddress)).toBe(true);
    // The account already held names its holder.
    expect(results[0]).toEqual(first);
  });

  it('where the batch import is not served (404), creates each user alone, and keeps doing so', async () => {
    const seen: string[] = [];
    const directory = remoteDirectory(
      async (input, init) => {
        seen.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
        return fetch(input, init);
      },
      // The wallet API's host: the provider does not serve the batch import there.
      { target: target(idp), importBase: idp.url },
    );
    const held = parseIdentifier(`email:${tag()}@example.com`);
    await directory.importUsers([held]);
    const identifiers = [
      held,
      parseIdentifier(`email:${tag()}@example.com`),
      parseIdentifier(`email:${tag()}@example.com`),
    ];
    const results = await directory.importUsers(identifiers);
    expect(results.every((r) => r.ok && r.user.subject && r.user.walletAddress)).toBe(true);
    // One batch attempt in all (the first import's), then only single creations: the first import's one, the
    // second's three (the held account is refused and found by its lookup).
    expect(seen.filter((s) => s === 'POST /v1/users/batch')).toHaveLength(1);
    expect(seen.filter((s) => s === 'POST /v1/users')).toHaveLength(4);
  });

  it("one by one, a rate-limited creation stops the batch as a wait of the provider's Retry-After, never as failed users", async () => {
    const limited = await startLocalIdp({ port: 0, userCreationLimit: { count: 2, windowMs: 5_000 } });
    try {
      const directory = remoteDirectory(fetch, {
        target: target(limited),
        importBase: limited.url,
        creationAttempts: 1,
      });
      const identifiers = Array.from({ length: 3 }, () => parseIdentifier(`email:${tag()}@example.com`));
      const error = await directory.importUsers(identifiers).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect(importDeferral(error)).toBeInstanceOf(ImportDeferred);
      expect(importDeferral(error)?.rateLimited).toBe(true);
      // The provider's own Retry-After (when its window frees room: within 5 s), not the adapter's minute.
      expect(importDeferral(error)?.waitMs).toBeGreaterThan(0);
      expect(importDeferral(error)?.waitMs).toBeLessThanOrEqual(5_000);
      const stats = (await (await fetch(`${limited.url}/local/limits/user-creation`)).json()) as {
        created: number;
        refused: number;
      };
      expect(stats).toMatchObject({ created: 2, refused: 1 });
    } finally {
      await limited.stop();
    }
  });
});

describe('user paths, error codes and the authorization key', () => {
  let idp: LocalIdp;
  beforeAll(async () => {
    idp = await startLocalIdp({ port: 0 });
  });
  afterAll(() => idp.stop());

  it('encodes a user id as the official client does: did:privy:… keeps its colons', () => {
    for (const did of ['did:privy:cm1abc', 'did:local:u-1', 'did:privy:a/b?c#d e', 'did:x:ü@%'])
      expect(userPath(did)).toBe(`/v1/users/${encodeURIPath(did)}`);
    expect(userPath('did:privy:cm1abc')).toBe('/v1/users/did:privy:cm1abc');
  });

  it('reads a did:privy user at the path the provider serves, colons unescaped', async () => {
    const seen: string[] = [];
    const directory = remoteDirectory(
      async (input, init) => {
        seen.push(new URL(String(input)).pathname);
        return fetch(input, init);
      },
      { target: target(idp) },
    );
    expect(await directory.isKnownSubject('did:privy:nobody-here')).toBe(false);
    expect(seen).toEqual(['/v1/users/did:privy:nobody-here']);
    expect(await directory.isKnownSubject('did:local:alice')).toBe(true);
  });

  it('maps the documented codes, and the stand-in answers with them', async () => {
    expect(new ProviderApiError(401, 'zero_correct_authorization_signatures', 'x').kind).toBe('signature');
    expect(new ProviderApiError(403, 'policy_violation', 'x').kind).toBe('policy');
    expect(new ProviderApiError(400, 'insufficient_funds', 'x').kind).toBe('funds');
    expect(new ProviderApiError(401, 'invalid_app_credentials', 'x').kind).toBe('credentials');
    expect(new ProviderApiError(429, undefined, 'x').kind).toBe('rate_limited');
    expect(new ProviderApiError(502, undefined, 'x').kind).toBe('unavailable');
    expect(Object.keys(PROVIDER_ERROR_CODES)).toEqual(
      expect.arrayContaining(['zero_correct_authorization_signatures', 'policy_violation']),
    );
    const rpc = (headers: Record<string, string>) =>
      fetch(`${idp.url}/v1/wallets/nowallet/rpc`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: basic,
          'privy-app-id': LOCAL_APP_ID,
          ...headers,
        },
        body: JSON.stringify({
          method: 'signTransaction',
          params: { transaction: 'AA', encoding: 'base64' },
        }),
      });
    expect(await (await rpc({})).json()).toMatchObject({ code: 'missing_or_empty_authorization_header' });
    expect(await (await rpc({ 'privy-authorization-signature': 'AAAA' })).json()).toMatchObject({
      code: 'zero_correct_authorization_signatures',
    });
  });

  it('accepts the authorization key with its wallet-api: prefix (and wallet-auth:, and none)', async () => {
    const raw = LOCAL_AUTHORIZATION_KEY.replace(/^wallet-auth:/, '');
    for (const authorizationKey of [`wallet-api:${raw}`, `wallet-auth:${raw}`, raw]) {
      const response = await providerRequest(
        fetch,
        '/v1/wallets/nowallet/rpc',
        {
          body: { method: 'signTransaction', params: { transaction: 'AA', encoding: 'base64' } },
          authorize: true,
          attempts: 1,
        },
        { ...target(idp), authorizationKey },
      );
      // Past the signature check: the wallet is what is missing.
      expect(response.status).toBe(404);
    }
  });

  it('a 429 or an unavailable provider with its Retry-After is a wait; anything else is not', () => {
    const limited = new AppError('RATE_LIMITED', 'limited', [], { 'Retry-After': '60' });
    expect(importDeferral(limited)).toMatchObject({ waitMs: 60_000, rateLimited: true });
    const busy = new AppError('UPSTREAM_UNAVAILABLE', 'busy', [], { 'Retry-After': '12' });
    expect(importDeferral(busy)).toMatchObject({ waitMs: 12_000, rateLimited: false });
    expect(importDeferral(new ProviderApiError(400, 'invalid_data', 'x'))).toBeUndefined();
    expect(importDeferral(new Error('boom'))).toBeUndefined();
  });
});

describe("the import's pace", () => {
  /** The most creations the provider's sliding window (a creation leaves it windowMs later) sees at once. */
  const peak = (log: Array<{ at: number; count: number }>, windowMs: number) =>
    Math.max(
      ...log.map((r) =>
        log.filter((o) => o.at <= r.at && r.at - o.at < windowMs).reduce((s, o) => s + o.count, 0),
      ),
    );

  it('never lets the provider see more than the limit in one window, whatever the batch sizes (seeded)', () => {
    for (const seed of [1, 2, 3, 42, 2026]) {
      const random = seeded(seed);
      const log: Array<{ at: number; count: number }> = [];
      let now = 0;
      for (let i = 0; i < 400; i++) {
        const count = 1 + Math.floor(random() * 20);
        now += Math.floor(random() * 3000);
        const at = nextSlot(log, count, now, 240);
        expect(at).toBeGreaterThanOrEqual(now);
        log.push({ at, count });
      }
      expect(peak(log, 60_000)).toBeLessThanOrEqual(240);
    }
  });

  it('keeps a backlog at the limit: 10 000 creations in batches of 20 take 10 000 / 240 minutes (+ the margin)', () => {
    const log: Array<{ at: number; count: number }> = [];
    for (let i = 0; i < 500; i++) log.push({ at: nextSlot(log, 20, 0, 240), count: 20 });
    const last = log.at(-1)?.at ?? 0;
    // Twelve batches (240) a window: the first at once, each later twelve a window of 61 s (60 s and the 1 s
    // margin) after the previous: the last of 500 batches in window 41, 41.7 minutes in (10 000 / 240 = 41.7).
    expect(last / 60_000).toBeCloseTo((Math.floor(499 / 12) * 61) / 60, 3);
    expect(peak(log, 60_000)).toBe(240);
  });
});

describe('secrets under a customer-managed KMS key', () => {
  type Statement = { Action: string[]; Resource: unknown };
  const functions = parse(readFileSync('infra/functions.generated.yml', 'utf8')) as Record<
    string,
    { iamRoleStatements?: Statement[] }
  >;
  const template = readFileSync('serverless.yml', 'utf8');

  it('gives every function that reads a secret kms:Decrypt on the key the deployer names, and only those', () => {
    const named = {
      'Fn::If': [
        'SecretsKmsKeyNamed',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: a serverless variable
        "${env:SECRETS_KMS_KEY_ARN, ''}",
        // biome-ignore lint/suspicious/noTemplateCurlyInString: CloudFormation fills the pseudo parameters
        { 'Fn::Sub': 'arn:${AWS::Partition}:kms:${AWS::Region}:${AWS::AccountId}:alias/aws/secretsmanager' },
      ],
    };
    let readers = 0;
    for (const [name, fn] of Object.entries(functions)) {
      const statements = fn.iamRoleStatements ?? [];
      const readsSecret = statements.some((s) => s.Action.includes('secretsmanager:GetSecretValue'));
      const decrypt = statements.filter((s) => s.Action.includes('kms:Decrypt'));
      expect(decrypt.length, name).toBe(readsSecret ? 1 : 0);
      if (readsSecret) {
        readers++;
        expect(decrypt[0]?.Resource, name).toEqual(named);
      }
    }
    expect(readers).toBeGreaterThan(0);
    expect(functions.importUsers?.iamRoleStatements?.some((s) => s.Action.includes('kms:Decrypt'))).toBe(
      true,
    );
  });

  it('encrypts the secrets the stack creates under that key when named, declaring the condition it uses', () => {
    expect(template).toMatch(
      /SecretsKmsKeyNamed: \{ "Fn::Not": \[\{ "Fn::Equals": \["\$\{env:SECRETS_KMS_KEY_ARN, ''\}", ""\] \}\] \}/,
    );
    expect(template.match(/KmsKeyId: \{ "Fn::If": \[SecretsKmsKeyNamed,/g)).toHaveLength(2);
  });
});
