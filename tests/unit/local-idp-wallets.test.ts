// The local identity provider's users and embedded wallets (scripts/idp/wallets.ts): the provider API the API
// calls (import, user record, Basic auth), the local endpoints, and persistence across restarts.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalIdp, startLocalIdp } from '../../scripts/idp/server.js';
import { importedSubject, LOCAL_APP_ID, LOCAL_APP_SECRET } from '../../scripts/idp/wallets.js';

const app = `Basic ${Buffer.from(`${LOCAL_APP_ID}:${LOCAL_APP_SECRET}`).toString('base64')}`;

type UserRecord = {
  id: string;
  linked_accounts: Array<Record<string, unknown>>;
};

const call = async (idp: LocalIdp, path: string, init: RequestInit = {}) => {
  const response = await fetch(`${idp.url}${path}`, {
    ...init,
    headers: { 'content-type': 'application/json', authorization: app, ...init.headers },
  });
  return { status: response.status, text: await response.text() };
};

const embedded = (user: UserRecord) =>
  user.linked_accounts.find((a) => a.type === 'wallet' && a.connector_type === 'embedded');

describe('local identity provider: users and embedded wallets', () => {
  let idp: LocalIdp;
  beforeAll(async () => {
    idp = await startLocalIdp({ port: 0 });
  });
  afterAll(() => idp.stop());

  it('imports an account once (upsert) with an embedded wallet, under the subject the API derives', async () => {
    const body = JSON.stringify({
      linked_accounts: [{ type: 'email', address: 'Ada@Example.com' }],
      create_embedded_wallet: true,
    });
    const first = await call(idp, '/v1/users/import', { method: 'POST', body });
    const again = await call(idp, '/v1/users/import', { method: 'POST', body });
    expect(first.status).toBe(200);
    const user = JSON.parse(first.text) as UserRecord;
    expect(JSON.parse(again.text)).toEqual(user);
    expect(user.id).toBe(importedSubject('email:ada@example.com'));
    expect(embedded(user)).toMatchObject({ chain_type: 'solana', delegated: true, imported: false });
    const record = await call(idp, `/v1/users/${encodeURIComponent(user.id)}`);
    expect(JSON.parse(record.text)).toEqual(user);
  });

  it("finds the user holding a wallet, embedded or linked, and an import of a user's embedded wallet is that user", async () => {
    const alice = JSON.parse((await call(idp, '/v1/users/did:local:alice-wallets')).text) as UserRecord;
    const address = String(embedded(alice)?.address);
    const lookup = (body: unknown) =>
      call(idp, '/v1/users/wallet/address', { method: 'POST', body: JSON.stringify(body) });
    const found = await lookup({ address });
    expect(found.status).toBe(200);
    expect(JSON.parse(found.text)).toEqual(alice);
    const imported = await call(idp, '/v1/users/import', {
      method: 'POST',
      body: JSON.stringify({
        linked_accounts: [{ type: 'wallet', chain_type: 'solana', address }],
        create_embedded_wallet: true,
      }),
    });
    // The holder, unchanged: no second user, no second wallet, the embedded wallet not linked twice.
    expect(JSON.parse(imported.text)).toEqual(alice);
    // A linked (imported) wallet is found too; an unknown one is 404, a malformed body 400.
    const external = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
    const created = await call(idp, '/v1/users/import', {
      method: 'POST',
      body: JSON.stringify({
        linked_accounts: [{ type: 'wallet', chain_type: 'solana', address: external }],
      }),
    });
    expect(JSON.parse((await lookup({ address: external })).text)).toEqual(JSON.parse(created.text));
    expect((await lookup({ address: 'So11111111111111111111111111111111111111112' })).status).toBe(404);
    expect((await lookup({})).status).toBe(400);
  });

  it('knows every did:local:<name> (created with a wallet on first use) and no other unknown did', async () => {
    const known = await call(idp, '/v1/users/did:local:zoe');
    expect(known.status).toBe(200);
    expect(embedded(JSON.parse(known.text) as UserRecord)?.address).toEqual(expect.any(String));
    expect((await call(idp, '/v1/users/did:privy:nobody')).status).toBe(404);
  });

  it('needs the app credentials on /v1 and never shows a key', async () => {
    const anonymous = await call(idp, '/v1/users/did:local:zoe', { headers: { authorization: '' } });
    expect(anonymous.status).toBe(401);
    const wrong = await call(idp, '/v1/users/did:local:zoe', { headers: { authorization: 'Basic eDp5' } });
    expect(wrong.status).toBe(401);
    const local = await call(idp, '/local/users/did:local:zoe');
    const { walletAddress } = JSON.parse(local.text) as { walletAddress: string };
    const wallet = await call(idp, `/local/wallets/${walletAddress}`);
    for (const text of [local.text, wallet.text]) expect(text).not.toMatch(/secret|private|seed/i);
  });

  it('answers 400 for a malformed import or delegation body and 404 for unknown routes and wallets', async () => {
    const bad = await call(idp, '/v1/users/import', { method: 'POST', body: '{"linked_accounts": []}' });
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
