import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type Address,
  compileTransaction,
  decompileTransactionMessage,
  getBase64EncodedWireTransaction,
  getCompiledTransactionMessageDecoder,
  getPublicKeyFromAddress,
  getTransactionDecoder,
  isAddress,
  partiallySignTransaction,
  type Transaction,
  verifySignature,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const { makeIdpWalletSigner, WalletSignerError } = await import('../../lib/adapters/wallet-signer.js');
const { startLocalIdp } = await import('../../scripts/idp/server.js');
const { LOCAL_APP_ID, LOCAL_APP_SECRET, LOCAL_AUTHORIZATION_KEY, LOCAL_AUTHORIZATION_PUBLIC_KEY } =
  await import('../../scripts/idp/wallets.js');
const { signaturePayload } = await import('../../lib/adapters/privy-api.js');

/** An authorization key that no key quorum of the app holds. */
const strangerKey = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .privateKey.export({ format: 'der', type: 'pkcs8' })
  .toString('base64');
const { signPlan } = await import('../../lib/chain/index.js');
const { externalSigner, newKeypair } = await import('../../lib/chain/spl.js');

const user = await newKeypair();
const coSigner = await newKeypair();
const stranger = await newKeypair();
const wallets = new Map([
  ['user-1', { id: 'wallet-id-1', address: user.signer.address, delegated: true }],
  // A valid wallet whose address the test transaction does not involve.
  ['user-3', { id: 'wallet-id-3', address: stranger.signer.address, delegated: true }],
]);
const load = async (userId: string) => wallets.get(userId) ?? null;

// A transaction paid by the user and co-signed by a platform key, as the launch builds them: the user's slot is
// left empty (NoopSigner) for the wallet signer, the co-signer's KeyPairSigner signs when the plan is signed.
const unsignedTx = async () =>
  signPlan(
    {
      feePayer: user.signer.address,
      instructions: [
        getTransferSolInstruction({
          source: externalSigner(user.signer.address),
          destination: coSigner.signer.address,
          amount: 1000n,
        }),
        getTransferSolInstruction({ source: coSigner.signer, destination: user.signer.address, amount: 1n }),
      ],
    },
    { blockhash: (await newKeypair()).signer.address, lastValidBlockHeight: 1000 },
  );

/** Every signature the message needs is present and valid (web3.js's `verifySignatures(true)`). */
const fullyAndValidlySigned = async (tx: Transaction) => {
  const entries = Object.entries(tx.signatures);
  if (entries.length === 0) return false;
  for (const [signer, signature] of entries) {
    if (!signature) return false;
    if (
      !(await verifySignature(await getPublicKeyFromAddress(signer as Address), signature, tx.messageBytes))
    )
      return false;
  }
  return true;
};

describe('authorization signature', () => {
  it('signs exactly the bytes the official @privy-io/node client signs, and its signatures verify', async () => {
    const official = await import('@privy-io/node');
    const input = {
      version: 1 as const,
      method: 'POST' as const,
      url: 'https://api.privy.io/v1/wallets/abc/rpc',
      body: {
        method: 'signTransaction',
        params: { transaction: 'AQID+/=', encoding: 'base64', n: 1.5e21 },
        z: [null, 'é\u2028'],
      },
      headers: { 'privy-app-id': 'app', 'privy-request-expiry': '1767225600000' },
    };
    const ours = signaturePayload(input);
    expect(Buffer.from(official.formatRequestForAuthorizationSignature(structuredClone(input)))).toEqual(
      ours,
    );
    // An empty body is signed as "", as the client does.
    const empty = { ...input, body: {} };
    expect(Buffer.from(official.formatRequestForAuthorizationSignature(structuredClone(empty)))).toEqual(
      signaturePayload(empty),
    );
    const theirs = official.generateAuthorizationSignature({
      authorizationPrivateKey: LOCAL_AUTHORIZATION_KEY,
      input: structuredClone(input),
    });
    const publicKey = createPublicKey({
      key: Buffer.from(LOCAL_AUTHORIZATION_PUBLIC_KEY, 'base64'),
      format: 'der',
      type: 'spki',
    });
    expect(verify('sha256', ours, publicKey, Buffer.from(theirs, 'base64'))).toBe(true);
  });
});

describe('the test transaction', () => {
  it('needs the user and the co-signer, and carries only the co-signer signature', async () => {
    const tx = await unsignedTx();
    expect(Object.keys(tx.signatures).sort()).toEqual([user.signer.address, coSigner.signer.address].sort());
    expect(tx.signatures[user.signer.address]).toBeNull();
    expect(tx.signatures[coSigner.signer.address]).toBeInstanceOf(Uint8Array);
    expect(await fullyAndValidlySigned(tx)).toBe(false);
  });
});

describe('identity-provider wallet signer against the local identity provider (scripts/idp)', () => {
  let idp: Awaited<ReturnType<typeof startLocalIdp>>;
  const providerWallets = new Map<string, { id: string; address: string; delegated: boolean }>();
  const signer = (authorizationKey: string = LOCAL_AUTHORIZATION_KEY) =>
    makeIdpWalletSigner(async (userId) => providerWallets.get(userId) ?? null, {
      apiUrl: idp.url,
      appId: LOCAL_APP_ID,
      appSecret: LOCAL_APP_SECRET,
      authorizationKey,
    });
  /** A user signed in at the provider: the provider created the wallet; the test never sees its key. */
  const signIn = async (name: string, delegation?: boolean) => {
    const response = await fetch(`${idp.url}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name, ...(delegation === undefined ? {} : { delegation }) }),
    });
    const body = (await response.json()) as { walletAddress: string; walletId: string; delegated: boolean };
    providerWallets.set(name, { id: body.walletId, address: body.walletAddress, delegated: body.delegated });
    return body;
  };
  /** A transaction paid by `payer` (its slot empty) and co-signed by a platform key. */
  const paidBy = async (payer: Address) =>
    signPlan(
      {
        feePayer: payer,
        instructions: [
          getTransferSolInstruction({
            source: externalSigner(payer),
            destination: coSigner.signer.address,
            amount: 1000n,
          }),
          getTransferSolInstruction({ source: coSigner.signer, destination: payer, amount: 1n }),
        ],
      },
      { blockhash: (await newKeypair()).signer.address, lastValidBlockHeight: 1000 },
    );
  const stats = async (address: string) =>
    (await (await fetch(`${idp.url}/local/wallets/${address}`)).json()) as {
      delegated: boolean;
      signRequests: number;
      signed: number;
    };

  beforeAll(async () => {
    idp = await startLocalIdp({ port: 0 });
  });
  afterAll(async () => {
    await idp.stop();
  });

  it('signs with the wallet the provider created, keeps the other signatures and counts the request', async () => {
    const { walletAddress, delegated } = await signIn('alice');
    expect(isAddress(walletAddress)).toBe(true);
    expect(delegated).toBe(true);
    const unsigned = await paidBy(walletAddress as Address);
    const tx = await signer().signTransaction('alice', unsigned);
    expect(await fullyAndValidlySigned(tx)).toBe(true);
    expect(tx.messageBytes).toEqual(unsigned.messageBytes);
    expect(tx.signatures[coSigner.signer.address]).toEqual(unsigned.signatures[coSigner.signer.address]);
    expect(await stats(walletAddress)).toMatchObject({ delegated: true, signRequests: 1, signed: 1 });
  });

  it("refuses to sign once the user removed the app's signer (a permanent error), and signs again once added", async () => {
    const { walletAddress } = await signIn('bob');
    await signIn('bob', false);
    const error = await signer()
      .signTransaction('bob', await paidBy(walletAddress as Address))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WalletSignerError);
    expect((error as Error).message).toMatch(
      /signer was removed from it.*401: No valid authorization signatures/,
    );
    expect((error as InstanceType<typeof WalletSignerError>).transient).toBe(false);
    expect(await stats(walletAddress)).toMatchObject({ delegated: false, signRequests: 1, signed: 0 });
    const revoke = await fetch(`${idp.url}/local/users/did:local:bob/delegation`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ delegated: true }),
    });
    expect(revoke.status).toBe(200);
    const tx = await signer().signTransaction('bob', await paidBy(walletAddress as Address));
    expect(await fullyAndValidlySigned(tx)).toBe(true);
  });

  it("refuses a transaction that does not need the wallet's signature, and wrong app credentials", async () => {
    await signIn('carol');
    const { walletAddress } = await signIn('dave');
    const error = await signer()
      .signTransaction('carol', await paidBy(walletAddress as Address))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WalletSignerError);
    expect((error as Error).message).toMatch(/400/);
    const dave = providerWallets.get('dave');
    const wrongApp = makeIdpWalletSigner(async () => dave ?? null, {
      apiUrl: idp.url,
      appId: LOCAL_APP_ID,
      appSecret: 'not-the-secret',
      authorizationKey: LOCAL_AUTHORIZATION_KEY,
    });
    const unauthorized = await wrongApp
      .signTransaction('dave', await paidBy(walletAddress as Address))
      .catch((e: unknown) => e);
    expect((unauthorized as Error).message).toMatch(/refused our credentials.*401/);
    expect((await stats(walletAddress)).signRequests).toBe(0);
  });

  it('refuses a request signed with a key no signer of the app holds, before the wallet is touched', async () => {
    const { walletAddress } = await signIn('erin');
    const error = await signer(strangerKey)
      .signTransaction('erin', await paidBy(walletAddress as Address))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WalletSignerError);
    expect((error as Error).message).toMatch(/No valid authorization signatures were provided/);
    expect((error as InstanceType<typeof WalletSignerError>).transient).toBe(false);
    expect(await stats(walletAddress)).toMatchObject({ delegated: true, signRequests: 0, signed: 0 });
  });

  it('refuses a wallet RPC without the app-id header, without a signature, or with an expired one', async () => {
    const { walletId, walletAddress } = await signIn('fay');
    const body = JSON.stringify({
      method: 'signTransaction',
      params: {
        transaction: getBase64EncodedWireTransaction(await paidBy(walletAddress as Address)),
        encoding: 'base64',
      },
    });
    const basic = `Basic ${Buffer.from(`${LOCAL_APP_ID}:${LOCAL_APP_SECRET}`).toString('base64')}`;
    const rpc = (headers: Record<string, string>) =>
      fetch(`${idp.url}/v1/wallets/${walletId}/rpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: basic, ...headers },
        body,
      });
    const noAppId = await rpc({});
    expect(noAppId.status).toBe(401);
    expect(await noAppId.json()).toMatchObject({ code: 'invalid_app_credentials' });
    const unsigned = await rpc({ 'privy-app-id': LOCAL_APP_ID });
    expect(unsigned.status).toBe(401);
    expect(await unsigned.json()).toMatchObject({ code: 'missing_or_empty_authorization_header' });
    const expired = await rpc({
      'privy-app-id': LOCAL_APP_ID,
      'privy-request-expiry': String(Date.now() - 1000),
      'privy-authorization-signature': 'AAAA',
    });
    expect(expired.status).toBe(401);
    expect(await expired.json()).toMatchObject({ code: 'request_expired' });
    expect((await stats(walletAddress)).signRequests).toBe(0);
  });
});

describe("identity-provider wallet signer: a policy on the app's signer", () => {
  it('a transaction invoking a program the policy does not allow is a permanent "policy denied"', async () => {
    const system = '11111111111111111111111111111111';
    const token = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
    for (const [programs, allowed] of [
      [[token], false],
      [[system, token], true],
    ] as const) {
      const idp = await startLocalIdp({ port: 0, signerPolicyPrograms: programs });
      try {
        const response = await fetch(`${idp.url}/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'polly' }),
        });
        const { walletAddress, walletId } = (await response.json()) as {
          walletAddress: string;
          walletId: string;
        };
        const signer = makeIdpWalletSigner(
          async () => ({ id: walletId, address: walletAddress, delegated: true }),
          {
            apiUrl: idp.url,
            appId: LOCAL_APP_ID,
            appSecret: LOCAL_APP_SECRET,
            authorizationKey: LOCAL_AUTHORIZATION_KEY,
          },
        );
        const tx = await signPlan(
          {
            feePayer: walletAddress as Address,
            instructions: [
              getTransferSolInstruction({
                source: externalSigner(walletAddress as Address),
                destination: coSigner.signer.address,
                amount: 1n,
              }),
            ],
          },
          { blockhash: (await newKeypair()).signer.address, lastValidBlockHeight: 1000 },
        );
        const result = await signer.signTransaction('polly', tx).catch((e: unknown) => e);
        if (allowed) expect(await fullyAndValidlySigned(result as Transaction)).toBe(true);
        else {
          expect(result).toBeInstanceOf(WalletSignerError);
          expect((result as Error).message).toMatch(/policy denied the transaction.*403/);
          expect((result as InstanceType<typeof WalletSignerError>).transient).toBe(false);
        }
      } finally {
        await idp.stop();
      }
    }
  });
});

describe('identity-provider wallet signer (against a local HTTP double)', () => {
  type Mode =
    | 'ok'
    | 'tamper'
    | 'no-signature'
    | 'bad-signature'
    | 'fail-429'
    | 'fail-500'
    | 'fail-401'
    | 'garbage'
    | 'not-json'
    | 'undecodable';
  let server: Server;
  let apiUrl: string;
  let seen: Array<{ method?: string; url?: string; headers: IncomingHttpHeaders; body: unknown }> = [];
  let mode: Mode = 'ok';

  /** What the provider does with the transaction it received (the `signed_transaction` it answers). */
  const answer = async (received: Transaction): Promise<string> => {
    if (mode === 'no-signature') return getBase64EncodedWireTransaction(received);
    if (mode === 'undecodable') return Buffer.from('not a transaction').toString('base64');
    let tx = received;
    if (mode === 'tamper') {
      // Redirect the first instruction: the user pays 1 SOL to someone else.
      const message = decompileTransactionMessage(
        getCompiledTransactionMessageDecoder().decode(tx.messageBytes),
      );
      const stolen = getTransferSolInstruction({
        source: externalSigner(user.signer.address),
        destination: (await newKeypair()).signer.address,
        amount: 1_000_000_000n,
      });
      tx = compileTransaction({ ...message, instructions: [stolen, ...message.instructions.slice(1)] });
    }
    const signed = await partiallySignTransaction([user.signer.keyPair], tx);
    if (mode === 'bad-signature')
      return getBase64EncodedWireTransaction({
        ...signed,
        signatures: { ...signed.signatures, [user.signer.address]: new Uint8Array(64).fill(1) },
      } as Transaction);
    return getBase64EncodedWireTransaction(signed);
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          params: { transaction: string };
        };
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        if (mode === 'fail-429') return void res.writeHead(429).end('slow down');
        if (mode === 'fail-500') return void res.writeHead(503).end('busy');
        if (mode === 'fail-401') return void res.writeHead(401).end('no');
        if (mode === 'garbage')
          return void res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        if (mode === 'not-json')
          return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>oops</html>');
        const received = getTransactionDecoder().decode(Buffer.from(body.params.transaction, 'base64'));
        const signed = await answer(received);
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            method: 'signTransaction',
            data: { signed_transaction: signed, encoding: 'base64' },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    seen = [];
    mode = 'ok';
  });

  const signer = () =>
    makeIdpWalletSigner(load, {
      apiUrl,
      appId: 'app-id',
      appSecret: 'app-secret',
      authorizationKey: LOCAL_AUTHORIZATION_KEY,
      timeoutMs: 2000,
    });

  const failure = async (m: Mode) => {
    mode = m;
    return signer()
      .signTransaction('user-1', await unsignedTx())
      .catch((e: unknown) => e);
  };

  it('POSTs the base64 transaction to /v1/wallets/{wallet_id}/rpc with Basic auth, the app id and an authorization signature, and uses the returned signature', async () => {
    const unsigned = await unsignedTx();
    const tx = await signer().signTransaction('user-1', unsigned);
    expect(await fullyAndValidlySigned(tx)).toBe(true);
    expect(tx.messageBytes).toEqual(unsigned.messageBytes);
    expect(tx.signatures[coSigner.signer.address]).toEqual(unsigned.signatures[coSigner.signer.address]);
    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/api/v1/wallets/wallet-id-1/rpc');
    expect(request?.headers.authorization).toBe(
      `Basic ${Buffer.from('app-id:app-secret').toString('base64')}`,
    );
    expect(request?.headers['privy-app-id']).toBe('app-id');
    // The signature verifies with the signer's public key over the canonical request the official client signs.
    const expiry = String(request?.headers['privy-request-expiry']);
    expect(Number(expiry)).toBeGreaterThan(Date.now());
    const payload = signaturePayload({
      version: 1,
      method: 'POST',
      url: `${apiUrl}/v1/wallets/wallet-id-1/rpc`,
      body: request?.body,
      headers: { 'privy-app-id': 'app-id', 'privy-request-expiry': expiry },
    });
    const publicKey = createPublicKey({
      key: Buffer.from(LOCAL_AUTHORIZATION_PUBLIC_KEY, 'base64'),
      format: 'der',
      type: 'spki',
    });
    const signature = Buffer.from(String(request?.headers['privy-authorization-signature']), 'base64');
    expect(verify('sha256', payload, publicKey, signature)).toBe(true);
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.body).toEqual({
      method: 'signTransaction',
      params: { transaction: getBase64EncodedWireTransaction(unsigned), encoding: 'base64' },
    });
    const walletAddress = await signer().address('user-1');
    expect(isAddress(walletAddress)).toBe(true);
    expect(walletAddress).toBe(user.signer.address);
  });

  it('rejects an answer whose message differs from what was sent', async () => {
    const error = await failure('tamper');
    expect(error).toBeInstanceOf(WalletSignerError);
    expect((error as Error).message).toMatch(/changed the transaction/);
  });

  it('rejects an answer without the wallet signature', async () => {
    const error = await failure('no-signature');
    expect(error).toBeInstanceOf(WalletSignerError);
    expect((error as Error).message).toMatch(/no signature/);
  });

  it('rejects an invalid signature and an unexpected body', async () => {
    const invalid = await failure('bad-signature');
    expect(invalid).toBeInstanceOf(WalletSignerError);
    expect((invalid as Error).message).toMatch(/invalid signature/);
    for (const m of ['garbage', 'not-json'] as const) {
      const unexpected = await failure(m);
      expect(unexpected, m).toBeInstanceOf(WalletSignerError);
      expect((unexpected as Error).message, m).toMatch(/unexpected body/);
    }
    const undecodable = await failure('undecodable');
    expect(undecodable).toBeInstanceOf(WalletSignerError);
    expect((undecodable as Error).message).toMatch(/undecodable transaction/);
  });

  it('names provider 429 and 5xx errors transient and other 4xx errors permanent', async () => {
    for (const m of ['fail-429', 'fail-500'] as const) {
      const transient = await failure(m);
      expect(transient, m).toBeInstanceOf(WalletSignerError);
      expect((transient as Error).name, m).toBe('WalletSignerTransientError');
      expect((transient as InstanceType<typeof WalletSignerError>).transient, m).toBe(true);
    }
    const permanent = await failure('fail-401');
    expect(permanent).toBeInstanceOf(WalletSignerError);
    expect((permanent as Error).name).toBe('WalletSignerError');
    expect((permanent as InstanceType<typeof WalletSignerError>).transient).toBe(false);
  });

  it('treats an unreachable provider as transient', async () => {
    const down = makeIdpWalletSigner(load, {
      apiUrl: 'http://127.0.0.1:1',
      appId: 'a',
      appSecret: 'b',
      authorizationKey: LOCAL_AUTHORIZATION_KEY,
      timeoutMs: 500,
    });
    const error = await down.signTransaction('user-1', await unsignedTx()).catch((e: unknown) => e);
    expect((error as Error).name).toBe('WalletSignerTransientError');
  });
});
