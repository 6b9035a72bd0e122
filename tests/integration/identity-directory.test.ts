// The identity directory against the local identity provider (scripts/idp), which enforces the provider's server
// contract: the app-id header and Basic auth, lookups, creation with a Solana wallet, the duplicate-account
// refusal and the creation rate limit.
import { randomUUID } from 'node:crypto';
import {
  CreateSecretCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idpCredentials } from '../../lib/adapters/privy-api.js';
import { AppError } from '../../lib/core/errors.js';
import { remoteDirectory } from '../../lib/user/directory.js';
import { parseIdentifier } from '../../lib/user/identifiers.js';
import { type LocalIdp, startLocalIdp } from '../../scripts/idp/server.js';
import {
  importedSubject,
  LOCAL_APP_ID,
  LOCAL_APP_SECRET,
  LOCAL_AUTHORIZATION_KEY,
} from '../../scripts/idp/wallets.js';

/** A fetch that records each provider call's path and status, and can hold lookups back. */
const recording = () => {
  const calls: Array<{ path: string; status: number }> = [];
  let gate: Promise<void> | undefined;
  const fetchImpl: typeof fetch = async (input, init) => {
    const path = new URL(String(input)).pathname;
    if (gate && path.startsWith('/v1/users/email/')) await gate;
    const response = await fetch(input, init);
    calls.push({ path, status: response.status });
    return response;
  };
  return {
    calls,
    fetchImpl,
    /** Hold every email lookup until `n` of them are in flight: two saves that both find nobody. */
    holdLookups(n: number) {
      let arrived = 0;
      let open: () => void = () => {};
      gate = new Promise((resolve) => {
        open = resolve;
      });
      const inner = fetchImpl;
      return async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
        if (new URL(String(input)).pathname.startsWith('/v1/users/email/') && ++arrived >= n) open();
        return inner(input, init);
      };
    },
  };
};

/** The stack's credentials secret (the local provider's, put there as a deployer would). */
const STACK_CREDENTIALS = process.env.IDP_CREDENTIALS_SECRET_ID ?? '';

/** A new credentials secret on the stack's Secrets Manager holding `value`; its name. */
const putSecret = async (value: string) => {
  const name = `test-idp-credentials-${randomUUID()}`;
  const client = new SecretsManagerClient({});
  await client.send(new CreateSecretCommand({ Name: name, SecretString: value }));
  client.destroy();
  return name;
};

const useIdp = (idp: LocalIdp, extra: Record<string, string> = {}) =>
  Object.assign(process.env, {
    IDP_API_URL: idp.url,
    IDP_APP_ID: LOCAL_APP_ID,
    IDP_CREDENTIALS_SECRET_ID: STACK_CREDENTIALS,
    IDP_RETRY_ATTEMPTS: '4',
    IDP_RETRY_BASE_MS: '1000',
    ...extra,
  });

describe('remote identity directory (the provider server API, through the local identity provider)', () => {
  let idp: LocalIdp;
  beforeAll(async () => {
    idp = await startLocalIdp({ port: 0 });
    useIdp(idp);
  });
  afterAll(() => idp.stop());

  it('looks a new email up, then creates its user with a Solana wallet; the next time only looks it up', async () => {
    const { calls, fetchImpl } = recording();
    const directory = remoteDirectory(fetchImpl);
    const found = await directory.findOrCreate(parseIdentifier('email:Ada@Example.com'));
    expect(found).toEqual({
      subject: importedSubject('email:ada@example.com'),
      walletAddress: expect.any(String),
      walletId: expect.any(String),
    });
    expect(calls).toEqual([
      { path: '/v1/users/email/address', status: 404 },
      { path: '/v1/users', status: 200 },
    ]);
    expect(await directory.findOrCreate(parseIdentifier('email:ada@example.com'))).toEqual(found);
    expect(calls.slice(2)).toEqual([{ path: '/v1/users/email/address', status: 200 }]);
  });

  it("names a user's own embedded wallet by that user, and creates a user for an unknown wallet", async () => {
    const { calls, fetchImpl } = recording();
    const directory = remoteDirectory(fetchImpl);
    const alice = (await (await fetch(`${idp.url}/local/users/did:local:alice-dir`)).json()) as {
      walletAddress: string;
      walletId: string;
    };
    expect(await directory.findOrCreate(parseIdentifier(`sol:${alice.walletAddress}`))).toEqual({
      subject: 'did:local:alice-dir',
      walletAddress: alice.walletAddress,
      walletId: alice.walletId,
    });
    expect(calls).toEqual([{ path: '/v1/users/wallet/address', status: 200 }]);
    const external = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
    expect(await directory.findOrCreate(parseIdentifier(`sol:${external}`))).toMatchObject({
      subject: importedSubject(`sol:${external}`),
    });
  });

  it('resolves an X handle through the provider, and leaves a handle nobody signed in with unimported', async () => {
    const directory = remoteDirectory();
    expect(await directory.findOrCreate(parseIdentifier('x:@nobody_yet'))).toEqual({});
    // An X user the provider knows (signed in with X: linked by its numeric subject) is found by handle.
    const basic = `Basic ${Buffer.from(`${LOCAL_APP_ID}:${LOCAL_APP_SECRET}`).toString('base64')}`;
    const created = await fetch(`${idp.url}/v1/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: basic, 'privy-app-id': LOCAL_APP_ID },
      body: JSON.stringify({
        linked_accounts: [{ type: 'twitter_oauth', subject: '42', username: 'Grace_H', name: 'Grace' }],
      }),
    });
    const { id } = (await created.json()) as { id: string };
    expect(await directory.findOrCreate(parseIdentifier('x:grace_h'))).toEqual({ subject: id });
  });

  it('two saves creating the same new email at once yield one provider user', async () => {
    const { calls, holdLookups } = recording();
    const directory = remoteDirectory(holdLookups(2));
    const email = parseIdentifier('email:race@example.com');
    const [a, b] = await Promise.all([directory.findOrCreate(email), directory.findOrCreate(email)]);
    expect(a).toEqual(b);
    expect(a.subject).toBe(importedSubject('email:race@example.com'));
    // Both found nobody and both tried to create: the provider refused the second, which looked it up again.
    expect(
      calls
        .filter((c) => c.path === '/v1/users')
        .map((c) => c.status)
        .sort(),
    ).toEqual([200, 400]);
    expect(
      calls
        .filter((c) => c.path === '/v1/users/email/address')
        .map((c) => c.status)
        .sort(),
    ).toEqual([200, 404, 404]);
  });

  it('validates dids against the provider', async () => {
    const directory = remoteDirectory();
    expect(await directory.isKnownSubject('did:local:known')).toBe(true);
    expect(await directory.isKnownSubject('did:privy:ghost')).toBe(false);
  });

  it('fails loudly with the provider refusal when the credentials are wrong', async () => {
    const wrong = await putSecret(
      JSON.stringify({ appSecret: 'not-the-secret', authorizationKey: LOCAL_AUTHORIZATION_KEY }),
    );
    useIdp(idp, { IDP_CREDENTIALS_SECRET_ID: wrong });
    try {
      await expect(remoteDirectory().findOrCreate(parseIdentifier('email:x@example.com'))).rejects.toThrow(
        /failed with 401: Invalid app ID or app secret/,
      );
    } finally {
      useIdp(idp);
    }
  });
});

describe('remote identity directory: the provider limits user creation', () => {
  it('backs off on a 429 and the creation still succeeds', async () => {
    const idp = await startLocalIdp({ port: 0, userCreationLimit: { count: 1, windowMs: 300 } });
    try {
      useIdp(idp, { IDP_RETRY_BASE_MS: '200' });
      const { calls, fetchImpl } = recording();
      const directory = remoteDirectory(fetchImpl);
      await directory.findOrCreate(parseIdentifier('email:first@example.com'));
      const second = await directory.findOrCreate(parseIdentifier('email:second@example.com'));
      expect(second.subject).toBe(importedSubject('email:second@example.com'));
      const creations = calls.filter((c) => c.path === '/v1/users').map((c) => c.status);
      expect(creations[0]).toBe(200);
      expect(creations[1]).toBe(429);
      expect(creations.at(-1)).toBe(200);
    } finally {
      await idp.stop();
    }
  });

  it('limited for longer than a retry is worth (8 s): a 503 with the provider’s Retry-After at once, never a 500', async () => {
    const idp = await startLocalIdp({ port: 0, userCreationLimit: { count: 1, windowMs: 60_000 } });
    try {
      useIdp(idp, { IDP_RETRY_ATTEMPTS: '2', IDP_RETRY_BASE_MS: '10' });
      const directory = remoteDirectory();
      await directory.findOrCreate(parseIdentifier('email:only@example.com'));
      const started = Date.now();
      const error = await directory
        .findOrCreate(parseIdentifier('email:late@example.com'))
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect(error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', status: 503 });
      // The provider's own wait (what is left of its 60 s window), not a guess; no sleep before answering.
      const retryAfter = Number((error as AppError).headers['Retry-After']);
      expect(retryAfter).toBeGreaterThan(8);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      await idp.stop();
    }
  });
});

describe('identity provider credentials (Secrets Manager)', () => {
  it('reads the app secret and authorization key from the secret once per container', async () => {
    const value = { appSecret: LOCAL_APP_SECRET, authorizationKey: LOCAL_AUTHORIZATION_KEY };
    const name = await putSecret(JSON.stringify(value));
    expect(await idpCredentials(name)).toEqual(value);
    // Rotated at the provider and in the secret: a running container keeps what it read (a new one reads anew).
    const client = new SecretsManagerClient({});
    await client.send(
      new PutSecretValueCommand({
        SecretId: name,
        SecretString: JSON.stringify({ ...value, appSecret: 'rotated' }),
      }),
    );
    client.destroy();
    expect(await idpCredentials(name)).toEqual(value);
  });

  it('names a malformed secret without showing its value', async () => {
    const name = await putSecret(JSON.stringify({ appSecret: 'sekrit-value' }));
    const error = await idpCredentials(name).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain(name);
    expect((error as Error).message).not.toContain('sekrit-value');
    const notJson = await putSecret('sekrit-value');
    await expect(idpCredentials(notJson)).rejects.toThrow(/must be JSON/);
  });

  it('fails on a secret that does not exist (a deploy whose credentials were never put)', async () => {
    await expect(idpCredentials(`missing-${randomUUID()}`)).rejects.toThrow(
      /can't find|not found|ResourceNotFound/i,
    );
  });
});
