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

process.env.SECRETS_ENCRYPTION_KEY ??= Buffer.alloc(32, 7).toString('base64');

const { sealSecret } = await import('../../lib/adapters/secrets.js');
const { makeIdpWalletSigner, makeLocalWalletSigner, WalletSignerError } = await import(
  '../../lib/adapters/wallet-signer.js'
);
const { signPlan } = await import('../../lib/chain/index.js');
const { externalSigner, newKeypair } = await import('../../lib/chain/spl.js');

const user = await newKeypair();
const coSigner = await newKeypair();
const stranger = await newKeypair();
const wallets = new Map([
  ['user-1', { address: user.signer.address, sealedSecretKey: sealSecret(Buffer.from(user.secretKey)) }],
  [
    'user-2',
    {
      address: (await newKeypair()).signer.address,
      sealedSecretKey: sealSecret(Buffer.from(user.secretKey)),
    },
  ],
  // A valid wallet whose address the test transaction does not involve.
  [
    'user-3',
    { address: stranger.signer.address, sealedSecretKey: sealSecret(Buffer.from(stranger.secretKey)) },
  ],
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

describe('the test transaction', () => {
  it('needs the user and the co-signer, and carries only the co-signer signature', async () => {
    const tx = await unsignedTx();
    expect(Object.keys(tx.signatures).sort()).toEqual([user.signer.address, coSigner.signer.address].sort());
    expect(tx.signatures[user.signer.address]).toBeNull();
    expect(tx.signatures[coSigner.signer.address]).toBeInstanceOf(Uint8Array);
    expect(await fullyAndValidlySigned(tx)).toBe(false);
  });
});

describe('local wallet signer', () => {
  const signer = makeLocalWalletSigner(load);

  it('signs with the sealed key of the user and keeps the other signatures', async () => {
    expect(await signer.address('user-1')).toBe(user.signer.address);
    const unsigned = await unsignedTx();
    const tx = await signer.signTransaction('user-1', unsigned);
    expect(await fullyAndValidlySigned(tx)).toBe(true);
    expect(tx.messageBytes).toEqual(unsigned.messageBytes);
    expect(tx.signatures[coSigner.signer.address]).toEqual(unsigned.signatures[coSigner.signer.address]);
  });

  it('refuses users without a wallet and keys that do not match the address', async () => {
    await expect(signer.signTransaction('nobody', await unsignedTx())).rejects.toThrow(WalletSignerError);
    const mismatch = signer.signTransaction('user-2', await unsignedTx());
    await expect(mismatch).rejects.toThrow(WalletSignerError);
    await expect(mismatch).rejects.toThrow(/does not match/);
  });

  it('refuses to sign a transaction that does not need its address', async () => {
    const error = await signer.signTransaction('user-3', await unsignedTx()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WalletSignerError);
    expect((error as Error).name).toBe('WalletSignerError');
    expect((error as Error).message).toMatch(/does not need the signature/);
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
    makeIdpWalletSigner(load, { apiUrl, appId: 'app-id', appSecret: 'app-secret', timeoutMs: 2000 });

  const failure = async (m: Mode) => {
    mode = m;
    return signer()
      .signTransaction('user-1', await unsignedTx())
      .catch((e: unknown) => e);
  };

  it('POSTs the base64 transaction to /v1/wallets/{address}/rpc with Basic auth and uses the returned signature', async () => {
    const unsigned = await unsignedTx();
    const tx = await signer().signTransaction('user-1', unsigned);
    expect(await fullyAndValidlySigned(tx)).toBe(true);
    expect(tx.messageBytes).toEqual(unsigned.messageBytes);
    expect(tx.signatures[coSigner.signer.address]).toEqual(unsigned.signatures[coSigner.signer.address]);
    expect(seen).toHaveLength(1);
    const [request] = seen;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe(`/api/v1/wallets/${user.signer.address}/rpc`);
    expect(request?.headers.authorization).toBe(
      `Basic ${Buffer.from('app-id:app-secret').toString('base64')}`,
    );
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
      timeoutMs: 500,
    });
    const error = await down.signTransaction('user-1', await unsignedTx()).catch((e: unknown) => e);
    expect((error as Error).name).toBe('WalletSignerTransientError');
  });
});
