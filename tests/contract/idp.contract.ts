// The production identity-provider adapter against a real staging app (Privy), so the local provider's contract
// (scripts/idp) is checked against the service it stands for. Needs, in the environment:
//   IDP_CONTRACT_APP_ID, IDP_CONTRACT_APP_SECRET      a staging app's credentials
//   IDP_CONTRACT_SIGNER_ID, IDP_CONTRACT_AUTHORIZATION_KEY   a key quorum of that app and its private key
//   IDP_CONTRACT_WALLET_ID (optional)                a wallet carrying that signer: signing is then checked too
//   IDP_CONTRACT_API_URL (optional, default https://api.privy.io)
//   IDP_CONTRACT_IMPORT_API_URL (optional, default https://auth.privy.io/api: where the batch import is served)
//   IDP_CONTRACT_RATE_LIMIT=1 (optional): also drive creations past the app's limit for its 429 (spends a minute
//     of the app's creations: some 260 users, deleted at the end)
// and is skipped otherwise. It creates a few users per run (fresh example.com emails, random wallets) and deletes
// them at the end. README.md, "Before going live", says when and how to run it.
import { randomUUID } from 'node:crypto';
import { address, getPublicKeyFromAddress, verifySignature } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalSecretsManager, startLocalSecretsManager } from '../../scripts/stack/secrets-manager.js';

const env = {
  appId: process.env.IDP_CONTRACT_APP_ID ?? '',
  appSecret: process.env.IDP_CONTRACT_APP_SECRET ?? '',
  signerId: process.env.IDP_CONTRACT_SIGNER_ID ?? '',
  authorizationKey: process.env.IDP_CONTRACT_AUTHORIZATION_KEY ?? '',
  walletId: process.env.IDP_CONTRACT_WALLET_ID ?? '',
  apiUrl: process.env.IDP_CONTRACT_API_URL ?? 'https://api.privy.io',
  importUrl: process.env.IDP_CONTRACT_IMPORT_API_URL ?? 'https://auth.privy.io/api',
  rateLimit: process.env.IDP_CONTRACT_RATE_LIMIT === '1',
};
const configured = Boolean(env.appId && env.appSecret && env.signerId && env.authorizationKey);

describe.skipIf(!configured)('identity provider contract (staging app)', () => {
  const created: string[] = [];
  let lib: {
    directory: typeof import('../../lib/user/directory.js');
    identifiers: typeof import('../../lib/user/identifiers.js');
    wallet: typeof import('../../lib/user/wallet.js');
    signer: typeof import('../../lib/adapters/wallet-signer.js');
    api: typeof import('../../lib/adapters/privy-api.js');
    chain: typeof import('../../lib/chain/index.js');
    spl: typeof import('../../lib/chain/spl.js');
  };

  let secrets: LocalSecretsManager;

  beforeAll(async () => {
    // The adapter reads the app's credentials from Secrets Manager as a deployed function does: here from the
    // local stand-in, holding the staging app's.
    secrets = await startLocalSecretsManager({ port: 0, region: 'us-east-1', accountId: '000000000000' });
    Object.assign(process.env, {
      IDP_API_URL: env.apiUrl,
      IDP_WALLET_API_URL: env.apiUrl,
      IDP_IMPORT_API_URL: env.importUrl,
      IDP_APP_ID: env.appId,
      IDP_SIGNER_ID: env.signerId,
      IDP_CREDENTIALS_SECRET_ID: 'arcadia-contract-idp-credentials',
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
    });
    const { SecretsManagerClient, CreateSecretCommand } = await import('@aws-sdk/client-secrets-manager');
    const client = new SecretsManagerClient({});
    await client.send(
      new CreateSecretCommand({
        Name: 'arcadia-contract-idp-credentials',
        SecretString: JSON.stringify({ appSecret: env.appSecret, authorizationKey: env.authorizationKey }),
      }),
    );
    client.destroy();
    lib = {
      directory: await import('../../lib/user/directory.js'),
      identifiers: await import('../../lib/user/identifiers.js'),
      wallet: await import('../../lib/user/wallet.js'),
      signer: await import('../../lib/adapters/wallet-signer.js'),
      api: await import('../../lib/adapters/privy-api.js'),
      chain: await import('../../lib/chain/index.js'),
      spl: await import('../../lib/chain/spl.js'),
    };
  });
  afterAll(async () => {
    for (const id of created.filter(Boolean))
      await lib.api.providerRequest(fetch, lib.api.userPath(id), { method: 'DELETE' });
    await secrets?.stop();
  });

  it('refuses a request without the app-id header', async () => {
    const response = await fetch(`${env.apiUrl}/v1/users/did:privy:nobody`, {
      headers: { authorization: `Basic ${Buffer.from(`${env.appId}:${env.appSecret}`).toString('base64')}` },
    });
    expect([400, 401, 403]).toContain(response.status);
  });

  it('finds or creates a user by email with a Solana wallet, then finds the same user', async () => {
    const directory = lib.directory.remoteDirectory();
    const email = lib.identifiers.parseIdentifier(`email:contract-${randomUUID()}@example.com`);
    const first = await directory.findOrCreate(email);
    expect(first.subject).toMatch(/^did:privy:/);
    created.push(first.subject ?? '');
    expect(first.walletAddress).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(await directory.findOrCreate(email)).toEqual(first);
    expect(await directory.isKnownSubject(first.subject ?? '')).toBe(true);
    expect(await directory.isKnownSubject('did:privy:cnotarealuser000000000000')).toBe(false);
    // Created by the API, the wallet does not carry our signer: the gate refuses it until the user adds it.
    const wallet = await lib.wallet.providerWallet(first.subject ?? '', { fresh: true });
    expect(wallet).toMatchObject({ id: expect.any(String), address: first.walletAddress, delegated: false });
  });

  it.skipIf(!env.walletId)(
    'signs for a wallet carrying our signer, and refuses a key no signer holds',
    async () => {
      const record = await lib.api.providerRequest(fetch, `/v1/wallets/${env.walletId}`);
      const { address: walletAddress } = (await record.json()) as { address: string };
      const wallet = { id: env.walletId, address: walletAddress, delegated: true };
      const tx = await lib.chain.signPlan(
        {
          feePayer: address(walletAddress),
          instructions: [
            getTransferSolInstruction({
              source: lib.spl.externalSigner(address(walletAddress)),
              destination: address(walletAddress),
              amount: 0n,
            }),
          ],
        },
        { blockhash: (await lib.spl.newKeypair()).signer.address, lastValidBlockHeight: 1 },
      );
      const signer = lib.signer.makeIdpWalletSigner(async () => wallet, {
        apiUrl: env.apiUrl,
        appId: env.appId,
        appSecret: env.appSecret,
        authorizationKey: env.authorizationKey,
      });
      const signed = await signer.signTransaction('contract', tx);
      const signature = signed.signatures[address(walletAddress)];
      if (!signature) throw new Error('no signature of the wallet');
      const publicKey = await getPublicKeyFromAddress(address(walletAddress));
      expect(await verifySignature(publicKey, signature, tx.messageBytes)).toBe(true);
      const { generateKeyPairSync } = await import('node:crypto');
      const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' })
        .privateKey.export({ format: 'der', type: 'pkcs8' })
        .toString('base64');
      const refused = await lib.signer
        .makeIdpWalletSigner(async () => wallet, { ...signerOptions(), authorizationKey: stranger })
        .signTransaction('contract', tx)
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(lib.signer.WalletSignerError);
      expect((refused as Error).message).toMatch(/40[13]/);
    },
  );
  it('imports a batch on the auth host: each user with a Solana wallet, an account already held named by its holder', async () => {
    const directory = lib.directory.remoteDirectory(fetch, { importBase: env.importUrl });
    const emails = Array.from({ length: 3 }, () =>
      lib.identifiers.parseIdentifier(`email:contract-${randomUUID()}@example.com`),
    );
    const [first] = emails;
    if (!first) throw new Error('no identifiers');
    const held = await directory.findOrCreate(first);
    created.push(held.subject ?? '');
    const results = await directory.importUsers(emails);
    for (const result of results) {
      expect(result.ok, JSON.stringify(result)).toBe(true);
      if (!result.ok) continue;
      expect(result.user.subject).toMatch(/^did:privy:/);
      expect(result.user.walletAddress).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
      created.push(result.user.subject ?? '');
    }
    expect(results[0]).toEqual({ ok: true, user: held });
  });

  it('finds a user by each lookup: email, a linked wallet, its embedded wallet; an unknown X handle is nobody', async () => {
    const directory = lib.directory.remoteDirectory();
    const { generateKeyPairSync } = await import('node:crypto');
    const { default: bs58 } = await import('bs58');
    const raw = generateKeyPairSync('ed25519')
      .publicKey.export({ format: 'der', type: 'spki' })
      .subarray(-32);
    const linked = lib.identifiers.parseIdentifier(`sol:${bs58.encode(raw)}`);
    const user = await directory.findOrCreate(linked);
    created.push(user.subject ?? '');
    expect(user.subject).toMatch(/^did:privy:/);
    expect(await directory.findOrCreate(linked)).toEqual(user);
    expect(
      await directory.findOrCreate(lib.identifiers.parseIdentifier(`sol:${user.walletAddress}`)),
    ).toEqual(user);
    const email = lib.identifiers.parseIdentifier(`email:contract-${randomUUID()}@example.com`);
    const byEmail = await directory.findOrCreate(email);
    created.push(byEmail.subject ?? '');
    expect(await directory.findOrCreate(email)).toEqual(byEmail);
    const handle = lib.identifiers.parseIdentifier(`x:nobody_${randomUUID().slice(0, 8)}`);
    expect(await directory.findOrCreate(handle)).toEqual({});
    // The did in the path as the official client writes it: colons kept.
    expect(lib.api.userPath(user.subject ?? '')).toBe(`/v1/users/${user.subject}`);
    expect(await directory.isKnownSubject(user.subject ?? '')).toBe(true);
  });

  it('refuses to sign for a wallet without our signer (revoked, or never added) with a documented code', async () => {
    const directory = lib.directory.remoteDirectory();
    const user = await directory.findOrCreate(
      lib.identifiers.parseIdentifier(`email:contract-${randomUUID()}@example.com`),
    );
    created.push(user.subject ?? '');
    const wallet = await lib.wallet.providerWallet(user.subject ?? '', { fresh: true });
    if (!wallet) throw new Error('the created user has no embedded wallet');
    expect(wallet.delegated).toBe(false);
    const body = {
      method: 'signTransaction',
      params: { transaction: await transferFrom(wallet.address), encoding: 'base64' },
    };
    const response = await lib.api.providerRequest(
      fetch,
      `/v1/wallets/${wallet.id}/rpc`,
      { body, authorize: true, attempts: 1 },
      { base: env.apiUrl },
    );
    const refusal = await lib.api.providerError(response, 'signing');
    expect(refusal.status).toBeGreaterThanOrEqual(400);
    expect(Object.keys(lib.api.PROVIDER_ERROR_CODES)).toContain(refusal.code);
    expect(refusal.kind).toBe('signature');
  });

  it.skipIf(!env.rateLimit)(
    "answers 429 with Retry-After past the app's creations a minute",
    async () => {
      const basic = `Basic ${Buffer.from(`${env.appId}:${env.appSecret}`).toString('base64')}`;
      let limited: Response | undefined;
      for (let i = 0; i < 15 && !limited; i++) {
        const response = await fetch(`${env.importUrl}/v1/users/batch`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: basic, 'privy-app-id': env.appId },
          body: JSON.stringify({
            users: Array.from({ length: 20 }, () => ({
              linked_accounts: [{ type: 'email', address: `contract-${randomUUID()}@example.com` }],
            })),
          }),
        });
        if (response.status === 429) limited = response;
        else {
          expect(response.status).toBe(200);
          const { results } = (await response.json()) as { results: Array<{ id?: string }> };
          created.push(...results.flatMap((r) => (r.id ? [r.id] : [])));
        }
      }
      expect(limited?.status).toBe(429);
      expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThan(0);
      const refusal = await lib.api.providerError(limited as Response, 'batch import');
      expect(refusal.kind).toBe('rate_limited');
    },
    120_000,
  );
});

/** A transfer of 0 lamports paid by `payer`, unsigned, as the wallet API's base64 wire transaction. */
const transferFrom = async (payer: string) => {
  const { getBase64EncodedWireTransaction } = await import('@solana/kit');
  const { signPlan } = await import('../../lib/chain/index.js');
  const { externalSigner, newKeypair } = await import('../../lib/chain/spl.js');
  const tx = await signPlan(
    {
      feePayer: address(payer),
      instructions: [
        getTransferSolInstruction({
          source: externalSigner(address(payer)),
          destination: address(payer),
          amount: 0n,
        }),
      ],
    },
    { blockhash: (await newKeypair()).signer.address, lastValidBlockHeight: 1 },
  );
  return getBase64EncodedWireTransaction(tx);
};

const signerOptions = () => ({ apiUrl: env.apiUrl, appId: env.appId, appSecret: env.appSecret });

// The console's sign-in against the same staging app, through the provider's official browser client, as the local
// provider's client API is driven in tests/unit/local-idp-client-auth.test.ts. Needs a test account of the app
// (the provider's dashboard gives one an email and a fixed one-time code):
//   IDP_CONTRACT_APP_ID, IDP_CONTRACT_TEST_EMAIL, IDP_CONTRACT_TEST_CODE
//   IDP_CONTRACT_JWKS_URL (optional, default https://auth.privy.io/api/v1/apps/<app id>/jwks.json)
//   IDP_CONTRACT_ISSUER (optional, default privy.io)
const client = {
  appId: process.env.IDP_CONTRACT_APP_ID ?? '',
  email: process.env.IDP_CONTRACT_TEST_EMAIL ?? '',
  code: process.env.IDP_CONTRACT_TEST_CODE ?? '',
};
const jwksUrl =
  process.env.IDP_CONTRACT_JWKS_URL ??
  `https://auth.privy.io/api/v1/apps/${encodeURIComponent(client.appId)}/jwks.json`;

describe.skipIf(!(client.appId && client.email && client.code))(
  'identity provider contract: email sign-in',
  () => {
    const privy = async () => {
      const { default: Privy, InMemoryCache } = await import('@privy-io/js-sdk-core');
      return new Privy({ appId: client.appId, storage: new InMemoryCache() });
    };

    it('refuses a wrong code as the local provider does (invalid_credentials)', async () => {
      const wrong = client.code === '000000' ? '000001' : '000000';
      const refusal = await (await privy()).auth.email.loginWithCode(client.email, wrong).then(
        () => undefined,
        (error: unknown) => error as { code?: string },
      );
      expect(refusal?.code).toBe('invalid_credentials');
    });

    it('signs the test account in with a token the API can verify (ES256, the app as audience)', async () => {
      const { createRemoteJWKSet, jwtVerify } = await import('jose');
      const session = await (await privy()).auth.email.loginWithCode(client.email, client.code);
      expect(session.token).toEqual(expect.any(String));
      const { payload, protectedHeader } = await jwtVerify(
        String(session.token),
        createRemoteJWKSet(new URL(jwksUrl)),
        { issuer: process.env.IDP_CONTRACT_ISSUER ?? 'privy.io', audience: client.appId },
      );
      expect(protectedHeader.alg).toBe('ES256');
      expect(payload.sub).toBe(session.user.id);
      expect(session.user.linked_accounts).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ type: 'email', address: client.email.toLowerCase() }),
        ]),
      );
    });
  },
);
