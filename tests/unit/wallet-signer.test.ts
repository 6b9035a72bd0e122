import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Keypair, PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

process.env.SECRETS_ENCRYPTION_KEY ??= Buffer.alloc(32, 7).toString('base64');

const { sealSecret } = await import('../../lib/adapters/secrets.js');
const { makeIdpWalletSigner, makeLocalWalletSigner, WalletSignerError } = await import(
  '../../lib/adapters/wallet-signer.js'
);

const user = Keypair.generate();
const coSigner = Keypair.generate();
const wallets = new Map([
  [
    'user-1',
    { address: user.publicKey.toBase58(), sealedSecretKey: sealSecret(Buffer.from(user.secretKey)) },
  ],
  [
    'user-2',
    {
      address: Keypair.generate().publicKey.toBase58(),
      sealedSecretKey: sealSecret(Buffer.from(user.secretKey)),
    },
  ],
]);
const load = async (userId: string) => wallets.get(userId) ?? null;

// A transaction paid by the user and co-signed by a platform key, as the launch builds them.
const unsignedTx = () => {
  const tx = new Transaction({
    feePayer: user.publicKey,
    recentBlockhash: Keypair.generate().publicKey.toBase58(),
  }).add(
    SystemProgram.transfer({ fromPubkey: user.publicKey, toPubkey: coSigner.publicKey, lamports: 1000 }),
    SystemProgram.transfer({ fromPubkey: coSigner.publicKey, toPubkey: user.publicKey, lamports: 1 }),
  );
  tx.partialSign(coSigner);
  return tx;
};

describe('local wallet signer', () => {
  const signer = makeLocalWalletSigner(load);

  it('signs with the sealed key of the user and keeps the other signatures', async () => {
    expect((await signer.address('user-1')).equals(user.publicKey)).toBe(true);
    const tx = await signer.signTransaction('user-1', unsignedTx());
    expect(tx.verifySignatures(true)).toBe(true);
  });

  it('refuses users without a wallet and keys that do not match the address', async () => {
    await expect(signer.signTransaction('nobody', unsignedTx())).rejects.toThrow(WalletSignerError);
    await expect(signer.signTransaction('user-2', unsignedTx())).rejects.toThrow(/does not match/);
  });
});

describe('identity-provider wallet signer (against a local HTTP double)', () => {
  let server: Server;
  let apiUrl: string;
  let seen: Array<{ method?: string; url?: string; headers: IncomingHttpHeaders; body: unknown }> = [];
  let mode: 'ok' | 'tamper' | 'bad-signature' | 'fail-500' | 'fail-401' | 'garbage' = 'ok';

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          params: { transaction: string };
        };
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        if (mode === 'fail-500') return void res.writeHead(503).end('busy');
        if (mode === 'fail-401') return void res.writeHead(401).end('no');
        if (mode === 'garbage')
          return void res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        const tx = Transaction.from(Buffer.from(body.params.transaction, 'base64'));
        if (mode === 'tamper')
          tx.instructions[0] = SystemProgram.transfer({
            fromPubkey: user.publicKey,
            toPubkey: Keypair.generate().publicKey,
            lamports: 10 ** 9,
          });
        tx.partialSign(user);
        if (mode === 'bad-signature') tx.addSignature(user.publicKey, Buffer.alloc(64, 1));
        const signed = tx
          .serialize({ requireAllSignatures: false, verifySignatures: false })
          .toString('base64');
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
    makeIdpWalletSigner(load, { apiUrl, appId: 'app-id', appSecret: 'app-secret', timeoutMs: 2000 });

  it('POSTs the base64 transaction to /v1/wallets/{address}/rpc with Basic auth and uses the returned signature', async () => {
    const tx = await signer().signTransaction('user-1', unsignedTx());
    expect(tx.verifySignatures(true)).toBe(true);
    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe(`/api/v1/wallets/${user.publicKey.toBase58()}/rpc`);
    expect(request?.headers.authorization).toBe(
      `Basic ${Buffer.from('app-id:app-secret').toString('base64')}`,
    );
    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.body).toEqual({
      method: 'signTransaction',
      params: { transaction: expect.any(String), encoding: 'base64' },
    });
    expect((await signer().address('user-1')) instanceof PublicKey).toBe(true);
  });

  it('rejects an answer whose message differs from what was sent', async () => {
    mode = 'tamper';
    await expect(signer().signTransaction('user-1', unsignedTx())).rejects.toThrow(/changed the transaction/);
  });

  it('rejects an invalid signature and an unexpected body', async () => {
    mode = 'bad-signature';
    await expect(signer().signTransaction('user-1', unsignedTx())).rejects.toThrow(/invalid signature/);
    mode = 'garbage';
    await expect(signer().signTransaction('user-1', unsignedTx())).rejects.toThrow(/unexpected body/);
  });

  it('names provider 5xx errors transient and 4xx errors permanent', async () => {
    mode = 'fail-500';
    const transient = await signer()
      .signTransaction('user-1', unsignedTx())
      .catch((e: unknown) => e);
    expect(transient).toBeInstanceOf(WalletSignerError);
    expect((transient as Error).name).toBe('WalletSignerTransientError');
    mode = 'fail-401';
    const permanent = await signer()
      .signTransaction('user-1', unsignedTx())
      .catch((e: unknown) => e);
    expect((permanent as Error).name).toBe('WalletSignerError');
  });

  it('treats an unreachable provider as transient', async () => {
    const down = makeIdpWalletSigner(load, {
      apiUrl: 'http://127.0.0.1:1',
      appId: 'a',
      appSecret: 'b',
      timeoutMs: 500,
    });
    const error = await down.signTransaction('user-1', unsignedTx()).catch((e: unknown) => e);
    expect((error as Error).name).toBe('WalletSignerTransientError');
  });
});
