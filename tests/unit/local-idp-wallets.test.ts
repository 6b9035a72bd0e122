// The local identity provider's users and embedded wallets (scripts/idp/wallets.ts): the provider API the API
// calls (creation, lookups, user and wallet records, the app-id header and Basic auth, the creation rate limit),
// the local endpoints, and persistence across restarts.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalIdp, startLocalIdp } from '../../scripts/idp/server.js';
import {
  importedSubject,
  LOCAL_APP_ID,
  LOCAL_APP_SECRET,
  LOCAL_SIGNER_ID,
} from '../../scripts/idp/wallets.js';

const app = `Basic ${Buffer.from(`${LOCAL_APP_ID}:${LOCAL_APP_SECRET}`).toString('base64')}`;

type UserRecord = {
  id: string;
  linked_accounts: Array<Record<string, unknown>>;
};

const call = async (idp: LocalIdp, path: string, init: RequestInit = {}) => {
  const response = await fetch(`${idp.url}${path}`, {
    ...init,
    headers: {
      'content-type': 'application/json',
      authorization: app,
      'privy-app-id': LOCAL_APP_ID,
      ...init.headers,
    },
  });
  return { status: response.status, text: await response.text(), headers: response.headers };
};
const post = (idp: LocalIdp, path: string, body: unknown) =>
  call(idp, path, { method: 'POST', body: JSON.stringify(body) });

const embedded = (user: UserRecord) =>
  user.linked_accounts.find((a) => a.type === 'wallet' && a.connector_type === 'embedded');

describe('local identity provider: users and embedded wallets (the provider server API)', () => {
  let idp: LocalIdp;
  beforeAll(async () => {
    idp = await startLocalIdp({ port: 0 });
  });
  afterAll(() => idp.stop());

  it('imports a batch of at most 20 users: each answered by index, an account conflict naming its holder', async () => {
    const held = JSON.parse(
      (await post(idp, '/v1/users', { linked_accounts: [{ type: 'email', address: 'held@example.com' }] }))
        .text,
    ) as UserRecord;
    const batch = await post(idp, '/api/v1/users/batch', {
      users: [
        {
          linked_accounts: [{ type: 'email', address: 'new@example.com' }],
          wallets: [{ chain_type: 'solana' }],
        },
        {
          linked_accounts: [{ type: 'email', address: 'held@example.com' }],
          wallets: [{ chain_type: 'solana' }],
        },
      ],
    });
    expect(batch.status).toBe(200);
    expect(JSON.parse(batch.text)).toEqual({
      results: [
        { action: 'create', index: 0, success: true, id: importedSubject('email:new@example.com') },
        {
          action: 'create',
          index: 1,
          success: false,
          code: 101,
          error: expect.stringContaining('conflict'),
          conflicting_did: held.id,
        },
      ],
    });
    const created = JSON.parse(
      (await call(idp, `/v1/users/${importedSubject('email:new@example.com')}`)).text,
    );
    expect(embedded(created as UserRecord)).toMatchObject({ chain_type: 'solana' });
    const tooMany = Array.from({ length: 21 }, (_, i) => ({
      linked_accounts: [{ type: 'email', address: `many-${i}@example.com` }],
    }));
    expect((await post(idp, '/api/v1/users/batch', { users: tooMany })).status).toBe(400);
  });

  it('a fault switch takes its API down (connections closed) or makes it hang, and back', async () => {
    const fault = (mode: string | null) =>
      call(idp, '/local/faults', { method: 'PUT', body: JSON.stringify({ mode }) });
    expect((await fault('down')).status).toBe(200);
    await expect(call(idp, '/v1/users/did:local:anyone')).rejects.toThrow();
    expect((await fault('hang')).status).toBe(200);
    await expect(
      fetch(`${idp.url}/v1/users/did:local:anyone`, { signal: AbortSignal.timeout(300) }),
    ).rejects.toMatchObject({ name: 'TimeoutError' });
    expect((await fault(null)).status).toBe(200);
    expect((await call(idp, '/v1/users/did:local:anyone')).status).toBe(200);
  });

  it('creates a user with a Solana wallet once: a second creation of the account is refused, a lookup finds it', async () => {
    const body = {
      linked_accounts: [{ type: 'email', address: 'ada@example.com' }],
      wallets: [{ chain_type: 'solana' }],
    };
    const first = await post(idp, '/v1/users', body);
    expect(first.status).toBe(200);
    const user = JSON.parse(first.text) as UserRecord;
    expect(user.id).toBe(importedSubject('email:ada@example.com'));
    expect(embedded(user)).toMatchObject({ chain_type: 'solana', id: expect.any(String), imported: false });
    const again = await post(idp, '/v1/users', body);
    expect(again.status).toBe(400);
    expect(JSON.parse(again.text)).toEqual({
      error: 'Linked account already belongs to another user',
      code: 'linked_account_in_use',
    });
    expect(
      JSON.parse((await post(idp, '/v1/users/email/address', { address: 'ada@example.com' })).text),
    ).toEqual(user);
    expect((await post(idp, '/v1/users/email/address', { address: 'nobody@example.com' })).status).toBe(404);
    const record = await call(idp, `/v1/users/${encodeURIComponent(user.id)}`);
    expect(JSON.parse(record.text)).toEqual(user);
    // Created by the API, the wallet carries no signer of the app: the user adds it.
    const wallet = JSON.parse((await call(idp, `/v1/wallets/${String(embedded(user)?.id)}`)).text);
    expect(wallet).toMatchObject({
      address: embedded(user)?.address,
      chain_type: 'solana',
      additional_signers: [],
    });
  });

  it('finds X users by handle and by numeric subject, and refuses an X account without its subject', async () => {
    const x = { type: 'twitter_oauth', subject: '1234567890', username: 'Ada_L', name: 'Ada' };
    const created = JSON.parse((await post(idp, '/v1/users', { linked_accounts: [x] })).text) as UserRecord;
    expect(JSON.parse((await post(idp, '/v1/users/twitter/username', { username: 'ada_l' })).text)).toEqual(
      created,
    );
    expect(
      JSON.parse((await post(idp, '/v1/users/twitter/subject', { subject: '1234567890' })).text),
    ).toEqual(created);
    const handleOnly = await post(idp, '/v1/users', {
      linked_accounts: [{ type: 'twitter_oauth', username: 'grace', name: 'Grace' }],
    });
    expect(handleOnly.status).toBe(400);
    expect(JSON.parse(handleOnly.text)).toMatchObject({ code: 'invalid_data' });
  });

  it("finds the user holding a wallet, embedded or linked, and refuses to create a user from another's wallet", async () => {
    const alice = JSON.parse((await call(idp, '/v1/users/did:local:alice-wallets')).text) as UserRecord;
    const address = String(embedded(alice)?.address);
    const lookup = (body: unknown) => post(idp, '/v1/users/wallet/address', body);
    const found = await lookup({ address });
    expect(found.status).toBe(200);
    expect(JSON.parse(found.text)).toEqual(alice);
    const taken = await post(idp, '/v1/users', {
      linked_accounts: [{ type: 'wallet', chain_type: 'solana', address }],
    });
    expect(JSON.parse(taken.text)).toMatchObject({ code: 'linked_account_in_use' });
    // A linked (imported) wallet is found too; an unknown one is 404, a malformed body 400.
    const external = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
    const created = await post(idp, '/v1/users', {
      linked_accounts: [{ type: 'wallet', chain_type: 'solana', address: external }],
    });
    expect(JSON.parse((await lookup({ address: external })).text)).toEqual(JSON.parse(created.text));
    expect((await lookup({ address: 'So11111111111111111111111111111111111111112' })).status).toBe(404);
    expect((await lookup({})).status).toBe(400);
  });

  it("knows every did:local:<name> (created with a wallet carrying the app's signer) and no other unknown did", async () => {
    const known = await call(idp, '/v1/users/did:local:zoe');
    expect(known.status).toBe(200);
    const wallet = embedded(JSON.parse(known.text) as UserRecord);
    expect(wallet?.address).toEqual(expect.any(String));
    expect(JSON.parse((await call(idp, `/v1/wallets/${String(wallet?.id)}`)).text)).toMatchObject({
      additional_signers: [{ signer_id: LOCAL_SIGNER_ID }],
    });
    expect((await call(idp, '/v1/users/did:privy:nobody')).status).toBe(404);
    expect((await call(idp, '/v1/wallets/nope')).status).toBe(404);
  });

  it('needs the app id header and the app credentials on /v1, and never shows a key', async () => {
    const noAppId = await call(idp, '/v1/users/did:local:zoe', { headers: { 'privy-app-id': '' } });
    expect(noAppId.status).toBe(401);
    expect(JSON.parse(noAppId.text)).toMatchObject({ code: 'invalid_app_credentials' });
    const anonymous = await call(idp, '/v1/users/did:local:zoe', { headers: { authorization: '' } });
    expect(anonymous.status).toBe(401);
    const wrong = await call(idp, '/v1/users/did:local:zoe', { headers: { authorization: 'Basic eDp5' } });
    expect(wrong.status).toBe(401);
    const local = await call(idp, '/local/users/did:local:zoe');
    const { walletAddress } = JSON.parse(local.text) as { walletAddress: string };
    const wallet = await call(idp, `/local/wallets/${walletAddress}`);
    for (const text of [local.text, wallet.text]) expect(text).not.toMatch(/secret|private|seed/i);
  });

  it('answers 400 for a malformed creation or delegation body and 404 for unknown routes and wallets', async () => {
    const bad = await call(idp, '/v1/users', { method: 'POST', body: '{"linked_accounts": []}' });
    expect(bad.status).toBe(400);
    const badFlag = await call(idp, '/local/users/did:local:zoe/delegation', {
      method: 'PUT',
      body: '{"delegated": "no"}',
    });
    expect(badFlag.status).toBe(400);
    expect((await call(idp, '/local/wallets/nope')).status).toBe(404);
    expect((await call(idp, '/v1/nothing')).status).toBe(404);
  });
});

describe('local identity provider: user creation is rate-limited per app', () => {
  it('answers 429 with Retry-After past the limit, and creates again once the window has passed', async () => {
    const idp = await startLocalIdp({ port: 0, userCreationLimit: { count: 2, windowMs: 400 } });
    try {
      const create = (n: number) =>
        post(idp, '/v1/users', { linked_accounts: [{ type: 'email', address: `limit-${n}@example.com` }] });
      expect((await create(1)).status).toBe(200);
      expect((await create(2)).status).toBe(200);
      const limited = await create(3);
      expect(limited.status).toBe(429);
      expect(JSON.parse(limited.text)).toMatchObject({ code: 'too_many_requests' });
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // Lookups are not user creations.
      expect((await post(idp, '/v1/users/email/address', { address: 'limit-1@example.com' })).status).toBe(
        200,
      );
      await new Promise((resolve) => setTimeout(resolve, 450));
      expect((await create(3)).status).toBe(200);
    } finally {
      await idp.stop();
    }
  });
});

describe('local identity provider: persistence', () => {
  const dir = mkdtempSync(join(tmpdir(), 'idp-wallets-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps users, wallets and delegation across a restart, in a file only its owner reads', async () => {
    const first = await startLocalIdp({ port: 0, dataDir: dir });
    await call(first, '/local/users/did:local:kim/delegation', {
      method: 'PUT',
      body: JSON.stringify({ delegated: false }),
    });
    const before = JSON.parse((await call(first, '/local/users/did:local:kim')).text);
    await first.stop();
    expect(statSync(join(dir, 'idp-users.json')).mode & 0o777).toBe(0o600);
    const second = await startLocalIdp({ port: 0, dataDir: dir });
    expect(JSON.parse((await call(second, '/local/users/did:local:kim')).text)).toEqual(before);
    expect(before).toMatchObject({ delegated: false });
    await second.stop();
  });
});
