// The chain adapter (lib/chain) against the local chain server started in this file on a free port. Fixtures are
// built with @solana/kit and the official program clients; @solana/spl-token (with web3.js's PublicKey) serves
// only as an independent reading of the same accounts.
import {
  type Address,
  address,
  type Base64EncodedWireTransaction,
  createNoopSigner,
  createSolanaRpc,
  generateKeyPairSigner,
  getAddressDecoder,
  getBase58Encoder,
  isSolanaError,
  type KeyPairSigner,
  partiallySignTransaction,
  type Signature,
  type SignatureBytes,
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR,
  signBytes,
  type Transaction,
  type TransactionSigner,
} from '@solana/kit';
import {
  ACCOUNT_SIZE,
  MINT_SIZE,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  unpackMint,
} from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getMintSize,
  getMintToInstruction,
  getTokenSize,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unitLimitFor } from '../../lib/chain/budget.js';
import {
  budgetOfTransaction,
  type Chain,
  ChainError,
  decodeWireTransaction,
  holdersToMap,
  makeChain,
  signPlan,
  type TransactionPlan,
  toChainError,
  wireTransaction,
} from '../../lib/chain/index.js';
import { decodeMint } from '../../lib/chain/token.js';
import { PRIORITIZATION_FEE_SLOTS } from '../../scripts/chain/ledger.js';
import { type LocalChain, startLocalChain } from '../../scripts/chain/rpc-server.js';
import { createMint, createTokenAccount } from '../helpers/spl-fixtures.js';

const SOL = 1_000_000_000n;
const SYSTEM_PROGRAM = '11111111111111111111111111111111';
/** Token-2022, spelled independently of lib/chain. */
const TOKEN_2022 = address(TOKEN_2022_PROGRAM_ID.toBase58());
const UNKNOWN_SIGNATURE = '1111111111111111111111111111111111111111111111111111111111111111';

let local: LocalChain;
let chain: Chain;

const newAddress = async () => (await generateKeyPairSigner()).address;

const funded = async (lamports = 10n * SOL) => {
  const signer = await generateKeyPairSigner();
  await chain.airdrop(signer.address, lamports);
  return signer;
};

const transfer = (from: TransactionSigner, to: Address, amount: bigint): TransactionPlan => ({
  feePayer: from.address,
  instructions: [getTransferSolInstruction({ source: from, destination: to, amount })],
});

/** A kit RPC client of its own: sends what the adapter would not (skipped preflight, stale blockhashes). */
const rawRpc = () => createSolanaRpc(local.url);

/** Send a signed transaction straight to the node, bypassing the adapter. */
const sendRaw = (tx: Transaction, options: { skipPreflight?: boolean } = {}) =>
  rawRpc()
    .sendTransaction(wireTransaction(tx) as Base64EncodedWireTransaction, { encoding: 'base64', ...options })
    .send();

const caught = async (promise: Promise<unknown>): Promise<ChainError> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ChainError);
  return error as ChainError;
};

/** The error a kit call rejects with (it must reject). */
const rejection = async (promise: Promise<unknown>): Promise<unknown> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeDefined();
  return error;
};

beforeAll(async () => {
  local = await startLocalChain({ port: 0 });
  chain = makeChain({ rpcUrl: local.url, pollMs: 50, requestTimeoutMs: 1000 });
});

afterAll(async () => {
  await local.stop();
});

describe('chain adapter', () => {
  it('airdrops on the local chain and reads the balance', async () => {
    const wallet = await newAddress();
    const signature = await chain.airdrop(wallet, 2n * SOL);
    expect(await chain.getBalance(wallet)).toBe(2n * SOL);
    expect(await chain.getSignatureStatus(signature)).toMatchObject({ status: 'finalized' });
    expect(await chain.getBalance(await newAddress())).toBe(0n);
  });

  it('refuses airdrops against a non-local RPC', async () => {
    const remote = makeChain({ rpcUrl: 'https://rpc.example.invalid' });
    const error = await caught(remote.airdrop(await newAddress(), SOL));
    expect(error.code).toBe('NOT_LOCAL');
  });

  it('reads accounts as owner, bigint lamports, executable flag and data, or null when absent', async () => {
    const wallet = await funded(SOL);
    expect(await chain.getAccountInfo(wallet.address)).toEqual({
      owner: SYSTEM_PROGRAM,
      lamports: SOL,
      executable: false,
      data: Buffer.alloc(0),
    });
    expect(await chain.getAccountInfo(await newAddress())).toBeNull();
    const program = await chain.getAccountInfo(TOKEN_PROGRAM_ADDRESS);
    expect(program).toMatchObject({ executable: true });
    expect(Buffer.isBuffer(program?.data)).toBe(true);
    expect(await chain.getMinimumBalanceForRentExemption(0)).toBeTypeOf('bigint');
  });

  it('reads the latest blockhash, block height and slot, which advance with the ledger', async () => {
    const before = await chain.getLatestBlockhash();
    const height = await chain.getBlockHeight();
    const slot = await chain.getSlot();
    expect(before.blockhash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(before.lastValidBlockHeight).toBeGreaterThan(height);
    local.ledger.advance(5);
    expect(await chain.getSlot()).toBeGreaterThanOrEqual(slot + 5);
    expect(await chain.getBlockHeight()).toBeGreaterThanOrEqual(height + 5);
    expect((await chain.getLatestBlockhash()).blockhash).not.toBe(before.blockhash);
  });

  it('sends and confirms by polling signature statuses, reporting the signature before sending', async () => {
    const from = await funded();
    const to = await newAddress();
    const sent: Array<{ signature: string; lastValidBlockHeight: number; fee: bigint }> = [];
    const signature = await chain.sendAndConfirm(transfer(from, to, SOL), {
      onSent: (s) => {
        sent.push(s);
      },
    });
    expect(sent).toEqual([{ signature, lastValidBlockHeight: expect.any(Number), fee: 5_000n }]);
    expect(await chain.getBalance(to)).toBe(SOL);
    expect(await chain.getSignatureStatus(signature)).toMatchObject({ status: 'finalized' });
    expect(await chain.getSignatureStatus(UNKNOWN_SIGNATURE)).toEqual({ status: 'unknown' });
    expect((await chain.getTransactionLogs(signature)).join('\n')).toMatch(
      /Program 11111111111111111111111111111111 success/,
    );
    expect(await chain.getTransactionLogs(UNKNOWN_SIGNATURE)).toEqual([]);
  });

  it('signs with the keypair signers of a plan and lets cosign add the signature of a NoopSigner slot', async () => {
    const wallet = await funded(SOL);
    const platform = await funded(SOL);
    const to = await newAddress();
    const external = createNoopSigner(wallet.address);
    const plan: TransactionPlan = {
      feePayer: wallet.address,
      instructions: [
        getTransferSolInstruction({ source: external, destination: to, amount: 1_000_000n }),
        getTransferSolInstruction({ source: platform, destination: to, amount: 2_000_000n }),
      ],
    };
    const seen: Transaction[] = [];
    await chain.sendAndConfirm(plan, {
      cosign: async (tx) => {
        seen.push(tx);
        return partiallySignTransaction([wallet.keyPair], tx);
      },
    });
    // The co-signer got the transaction signed by the plan's keypair, its own slot still empty.
    expect(seen).toHaveLength(1);
    expect(seen[0]?.signatures[platform.address]).toBeInstanceOf(Uint8Array);
    expect(seen[0]?.signatures[wallet.address]).toBeNull();
    expect(await chain.getBalance(to)).toBe(3_000_000n);
    // Two signatures: 2 × 5000 lamports of fees, paid by the wallet.
    expect(await chain.getBalance(wallet.address)).toBe(SOL - 1_000_000n - 10_000n);
  });

  it('fails with a permanent ChainError carrying the program logs when preflight fails', async () => {
    const from = await funded(SOL);
    const error = await caught(chain.sendAndConfirm(transfer(from, await newAddress(), 5n * SOL)));
    expect(error.name).toBe('ChainError');
    expect(error.transient).toBe(false);
    expect(error.code).toBe('SIMULATION_FAILED');
    expect(error.message).toMatch(/^sendTransaction: .*custom program error: 0x1/);
    expect(error.logs).toContain(
      'Program 11111111111111111111111111111111 failed: custom program error: 0x1',
    );
    expect(error.signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
  });

  it('reports a transaction that landed and failed as TRANSACTION_FAILED with its logs', async () => {
    const from = await funded(SOL);
    const lifetime = await chain.getLatestBlockhash();
    const tx = await signPlan(transfer(from, await newAddress(), 5n * SOL), lifetime);
    const signature = await sendRaw(tx, { skipPreflight: true });
    const error = await caught(
      chain.confirm({ signature, lastValidBlockHeight: lifetime.lastValidBlockHeight }),
    );
    expect(error.code).toBe('TRANSACTION_FAILED');
    expect(error.signature).toBe(signature);
    expect(error.logs.join('\n')).toMatch(/insufficient lamports/);
    expect(await chain.getSignatureStatus(signature)).toMatchObject({ status: 'failed' });
  });

  it('refuses to send a transaction whose NoopSigner slot is left unsigned', async () => {
    const from = await funded(SOL);
    const other = await funded(SOL);
    const plan = transfer(from, other.address, SOL);
    const tx: TransactionPlan = {
      ...plan,
      instructions: [
        ...plan.instructions,
        getTransferSolInstruction({
          source: createNoopSigner(other.address),
          destination: from.address,
          amount: 1n,
        }),
      ],
    };
    let sent = false;
    const error = await caught(
      chain.sendAndConfirm(tx, {
        onSent: () => {
          sent = true;
        },
      }),
    );
    expect(error).toMatchObject({ code: 'MISSING_SIGNATURE', name: 'ChainError', transient: false });
    expect(sent).toBe(false);
    expect(await chain.getBalance(from.address)).toBe(SOL);
    expect(await chain.getBalance(other.address)).toBe(SOL);
  });

  it.each([
    [
      'a flipped byte in the right signature',
      async (tx: Transaction, wallet: KeyPairSigner) => {
        const signed = await partiallySignTransaction([wallet.keyPair], tx);
        const bytes = Uint8Array.from(signed.signatures[wallet.address] ?? []);
        bytes[0] = (bytes[0] ?? 0) ^ 0xff;
        return bytes as SignatureBytes;
      },
    ],
    [
      "another key's signature of the message",
      async (tx: Transaction) =>
        signBytes((await generateKeyPairSigner()).keyPair.privateKey, tx.messageBytes),
    ],
  ])('refuses a cosign that returns %s', async (_, forge) => {
    const wallet = await funded(SOL);
    const to = await newAddress();
    const plan: TransactionPlan = {
      feePayer: wallet.address,
      instructions: [
        getTransferSolInstruction({
          source: createNoopSigner(wallet.address),
          destination: to,
          amount: SOL / 2n,
        }),
      ],
    };
    let sent = false;
    const error = await caught(
      chain.sendAndConfirm(plan, {
        cosign: async (tx) => ({
          ...tx,
          signatures: { ...tx.signatures, [wallet.address]: await forge(tx, wallet) },
        }),
        onSent: () => {
          sent = true;
        },
      }),
    );
    expect(error).toMatchObject({ code: 'MISSING_SIGNATURE', transient: false });
    expect(sent).toBe(false);
    expect(await chain.getBalance(to)).toBe(0n);
    expect(await chain.getBalance(wallet.address)).toBe(SOL);
  });

  // The co-signed transaction must keep every signer slot of the message: a dropped slot would otherwise pass
  // the signature check and reach the node as undecodable wire bytes.
  it('refuses a cosign that drops the slot of a required signer', async () => {
    const wallet = await funded(SOL);
    const platform = await funded(SOL);
    const to = await newAddress();
    const plan: TransactionPlan = {
      feePayer: wallet.address,
      instructions: [
        getTransferSolInstruction({ source: createNoopSigner(wallet.address), destination: to, amount: 1n }),
        getTransferSolInstruction({ source: platform, destination: to, amount: 1n }),
      ],
    };
    let sent = false;
    const error = await caught(
      chain.sendAndConfirm(plan, {
        cosign: async (tx) => {
          const signed = await partiallySignTransaction([wallet.keyPair], tx);
          const { [platform.address]: _dropped, ...kept } = signed.signatures;
          return { ...signed, signatures: kept };
        },
        onSent: () => {
          sent = true;
        },
      }),
    );
    expect(error).toMatchObject({ code: 'MISSING_SIGNATURE', transient: false });
    expect(sent).toBe(false);
  });

  it('refuses a cosign that returns another, validly signed message', async () => {
    const wallet = await funded(SOL);
    const to = await newAddress();
    const thief = await newAddress();
    const plan: TransactionPlan = {
      feePayer: wallet.address,
      instructions: [
        getTransferSolInstruction({ source: createNoopSigner(wallet.address), destination: to, amount: 1n }),
      ],
    };
    let sent = false;
    const error = await caught(
      chain.sendAndConfirm(plan, {
        // A co-signer that signs a different transfer (to someone else) with the same lifetime.
        cosign: async () => {
          const { blockhash, lastValidBlockHeight } = await chain.getLatestBlockhash();
          return signPlan(
            {
              feePayer: wallet.address,
              instructions: [
                getTransferSolInstruction({ source: wallet, destination: thief, amount: SOL / 2n }),
              ],
            },
            { blockhash, lastValidBlockHeight },
          );
        },
        onSent: () => {
          sent = true;
        },
      }),
    );
    expect(error).toMatchObject({ code: 'MISSING_SIGNATURE', transient: false });
    expect(sent).toBe(false);
    expect(await chain.getBalance(thief)).toBe(0n);
  });

  it('classifies HTTP 503/429, timeouts and unhealthy nodes as ChainTransientError', async () => {
    local.injectFault({ method: 'getBalance', status: 503 });
    const unavailable = await caught(chain.getBalance(await newAddress()));
    expect(unavailable).toMatchObject({
      name: 'ChainTransientError',
      transient: true,
      code: 'RPC_UNAVAILABLE',
    });
    // One attempt a call and a page: the classification of one failure (retries: rpc-budget and holders-retry tests).
    const once = makeChain({
      rpcUrl: local.url,
      pollMs: 50,
      rateLimitRetry: { attempts: 1 },
      holders: { attempts: 1 },
    });
    local.injectFault({ method: 'getAccountInfo', status: 429 });
    expect(await caught(once.getAccountInfo(await newAddress()))).toMatchObject({
      code: 'RPC_UNAVAILABLE',
      transient: true,
    });
    // A client with a short request timeout: the timeout cases need not wait a second each.
    const impatient = makeChain({
      rpcUrl: local.url,
      pollMs: 50,
      requestTimeoutMs: 200,
      holders: { attempts: 1 },
    });
    local.injectFault({ method: 'getBalance', delayMs: 600 });
    expect(await caught(impatient.getBalance(await newAddress()))).toMatchObject({
      code: 'RPC_UNAVAILABLE',
      transient: true,
      message: expect.stringMatching(/^getBalance: RPC request failed: .*\btimed? ?out\b/i),
    });
    local.injectFault({
      method: 'getSignatureStatuses',
      rpcError: { code: -32005, message: 'Node is unhealthy' },
    });
    expect((await caught(chain.getSignatureStatus(UNKNOWN_SIGNATURE))).transient).toBe(true);
    local.injectFault({ method: 'getAccountInfo', rpcError: { code: -32602, message: 'Invalid params' } });
    expect(await caught(chain.getAccountInfo(await newAddress()))).toMatchObject({
      code: 'RPC_ERROR',
      transient: false,
    });
    // listTokenHolders reads getProgramAccounts page by page without kit's client: the same classification. A
    // failed page fails the read (the builder retries the message); the first page fails here, so one fault each.
    local.injectFault({ method: 'getProgramAccounts', status: 503 });
    expect(await caught(once.listTokenHolders(await newAddress()))).toMatchObject({
      code: 'RPC_UNAVAILABLE',
      transient: true,
    });
    local.injectFault({ method: 'getProgramAccounts', delayMs: 600 });
    expect(await caught(impatient.listTokenHolders(await newAddress()))).toMatchObject({
      code: 'RPC_UNAVAILABLE',
      message: expect.stringMatching(/^getProgramAccounts: RPC request failed: .*\btimed? ?out\b/i),
    });
    local.injectFault({
      method: 'getProgramAccounts',
      rpcError: { code: -32005, message: 'Node is behind' },
    });
    expect((await caught(once.listTokenHolders(await newAddress()))).transient).toBe(true);
    // A page from a node behind the first page's slot: -32016, transient.
    local.injectFault({
      method: 'getProgramAccounts',
      rpcError: { code: -32016, message: 'Minimum context slot has not been reached' },
    });
    expect((await caught(once.listTokenHolders(await newAddress()))).transient).toBe(true);
    local.injectFault({
      method: 'getProgramAccounts',
      rpcError: { code: -32602, message: 'Invalid params' },
    });
    expect(await caught(once.listTokenHolders(await newAddress()))).toMatchObject({
      code: 'RPC_ERROR',
      transient: false,
    });
    // The provider's paginated API is classified the same way.
    const helius = makeChain({
      rpcUrl: local.url,
      requestTimeoutMs: 1000,
      holders: { source: 'helius', attempts: 1 },
    });
    local.injectFault({ method: 'getProgramAccountsV2', status: 429 });
    expect(await caught(helius.listTokenHolders(await newAddress()))).toMatchObject({
      code: 'RPC_UNAVAILABLE',
      transient: true,
    });
    local.injectFault({
      method: 'getProgramAccountsV2',
      rpcError: { code: -32602, message: 'Invalid params' },
    });
    expect((await caught(helius.listTokenHolders(await newAddress()))).transient).toBe(false);
    // Nothing left queued for the next test.
    expect(await helius.listTokenHolders(await newAddress())).toMatchObject({ count: 0, pages: 3 });
  });

  it('keeps confirming through a failed send and a flaky status poll', async () => {
    const from = await funded();
    const to = await newAddress();
    local.injectFault({ method: 'sendTransaction', status: 502 });
    local.injectFault({ method: 'getSignatureStatuses', status: 503, times: 2 });
    const resending = makeChain({ rpcUrl: local.url, pollMs: 50, resendMs: 100, requestTimeoutMs: 1000 });
    await resending.sendAndConfirm(transfer(from, to, SOL), { timeoutMs: 5000 });
    expect(await chain.getBalance(to)).toBe(SOL);
  });

  it('re-broadcasts a dropped transaction until it lands', async () => {
    const from = await funded();
    const to = await newAddress();
    local.injectFault({ method: 'sendTransaction', drop: true });
    const resending = makeChain({ rpcUrl: local.url, pollMs: 50, resendMs: 100 });
    await resending.sendAndConfirm(transfer(from, to, SOL), { timeoutMs: 5000 });
    expect(await chain.getBalance(to)).toBe(SOL);
  });

  it('confirms a transaction the node had already processed, landing it once', async () => {
    const from = await funded();
    const to = await newAddress();
    let early: string | undefined;
    const signature = await chain.sendAndConfirm(transfer(from, to, SOL), {
      // The same signed transaction reaches the node first (as an earlier attempt's copy would).
      cosign: async (tx) => {
        early = await sendRaw(tx);
        return tx;
      },
    });
    expect(signature).toBe(early);
    expect(await chain.getBalance(to)).toBe(SOL);
    expect(await chain.getBalance(from.address)).toBe(9n * SOL - 5000n);
  });

  it('fails with transient BLOCKHASH_EXPIRED when the blockhash expired before the node saw the transaction', async () => {
    const from = await funded();
    const to = await newAddress();
    const error = await caught(
      chain.sendAndConfirm(transfer(from, to, SOL), {
        onSent: () => {
          local.ledger.advance(151);
        },
      }),
    );
    expect(error).toMatchObject({ code: 'BLOCKHASH_EXPIRED', name: 'ChainTransientError', transient: true });
    expect(error.signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    expect(await chain.getBalance(to)).toBe(0n);
  });

  it('gives up with transient CONFIRM_TIMEOUT, and BLOCKHASH_EXPIRED once the blockhash can no longer land', async () => {
    const from = await funded();
    local.injectFault({ method: 'sendTransaction', drop: true, times: 100 });
    try {
      const timeout = await caught(
        chain.sendAndConfirm(transfer(from, await newAddress(), SOL), { timeoutMs: 300 }),
      );
      expect(timeout).toMatchObject({ code: 'CONFIRM_TIMEOUT', name: 'ChainTransientError' });
      const pending = chain.sendAndConfirm(transfer(from, await newAddress(), SOL), {
        timeoutMs: 5000,
      });
      await new Promise((r) => setTimeout(r, 200));
      local.ledger.advance(151);
      const expired = await caught(pending);
      expect(expired).toMatchObject({ code: 'BLOCKHASH_EXPIRED', transient: true });
      expect(await chain.getBalance(from.address)).toBe(10n * SOL);
    } finally {
      local.clearFaults();
    }
  });
});

describe('classification of kit errors', () => {
  it('a preflight failure is SIMULATION_FAILED with the logs, the action and the signature', async () => {
    const from = await funded(SOL);
    const tx = await signPlan(transfer(from, await newAddress(), 5n * SOL), await chain.getLatestBlockhash());
    const error = await rejection(sendRaw(tx));
    expect(
      isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE),
    ).toBe(true);
    const classified = toChainError(error, { action: 'sendTransaction', signature: 'sig' });
    expect(classified).toMatchObject({
      code: 'SIMULATION_FAILED',
      name: 'ChainError',
      transient: false,
      signature: 'sig',
      cause: error,
    });
    // A plain kit client drops the node's message: the text is kit's rendering of the same error.
    expect(classified.message).toMatch(/^sendTransaction: .*custom program error/i);
    expect(classified.logs).toContain(
      'Program 11111111111111111111111111111111 failed: custom program error: 0x1',
    );
  });

  it('a blockhash-not-found preflight is transient BLOCKHASH_EXPIRED', async () => {
    const from = await funded(SOL);
    const tx = await signPlan(transfer(from, await newAddress(), SOL), await chain.getLatestBlockhash());
    local.ledger.advance(151);
    const error = await rejection(sendRaw(tx));
    expect(
      isSolanaError(error, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE),
    ).toBe(true);
    expect(toChainError(error)).toMatchObject({
      code: 'BLOCKHASH_EXPIRED',
      name: 'ChainTransientError',
      transient: true,
    });
    expect(await chain.getBalance(from.address)).toBe(SOL);
  });

  it('a second copy of a processed transaction is ALREADY_PROCESSED', async () => {
    const from = await funded(SOL);
    const tx = await signPlan(transfer(from, await newAddress(), SOL / 2n), await chain.getLatestBlockhash());
    await sendRaw(tx);
    const error = await rejection(sendRaw(tx));
    expect(toChainError(error, { action: 'sendTransaction' })).toMatchObject({
      code: 'ALREADY_PROCESSED',
      transient: false,
    });
  });

  it.each([
    [429, 'RPC_UNAVAILABLE', true],
    [503, 'RPC_UNAVAILABLE', true],
    [500, 'RPC_UNAVAILABLE', true],
    [400, 'RPC_ERROR', false],
  ] as const)('HTTP %i from kit’s transport is %s', async (status, code, transient) => {
    local.injectFault({ method: 'getSlot', status });
    const error = await rejection(rawRpc().getSlot().send());
    expect(isSolanaError(error, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR)).toBe(true);
    const classified = toChainError(error, { action: 'getSlot' });
    expect(classified).toMatchObject({ code, transient, message: `getSlot: RPC answered HTTP ${status}` });
  });

  it('JSON-RPC error codes: node unhealthy or behind are transient, invalid params are not', async () => {
    local.injectFault({ method: 'getSlot', rpcError: { code: -32005, message: 'Node is unhealthy' } });
    expect(toChainError(await rejection(rawRpc().getSlot().send()), { action: 'getSlot' })).toMatchObject({
      code: 'RPC_UNAVAILABLE',
      transient: true,
      message: expect.stringMatching(/^getSlot: .*Node is unhealthy/),
    });
    local.injectFault({ method: 'getSlot', rpcError: { code: -32602, message: 'Invalid params' } });
    expect(toChainError(await rejection(rawRpc().getSlot().send()))).toMatchObject({
      code: 'RPC_ERROR',
      transient: false,
    });
  });

  it('leaves ChainErrors as they are and classifies plain transport failures', () => {
    const original = new ChainError('CONFIRM_TIMEOUT', 'slow');
    expect(toChainError(original)).toBe(original);
    expect(toChainError(new TypeError('fetch failed'))).toMatchObject({ code: 'RPC_UNAVAILABLE' });
    expect(
      toChainError(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    ).toMatchObject({ code: 'RPC_UNAVAILABLE', transient: true });
    expect(toChainError(new Error('boom'))).toMatchObject({ code: 'RPC_ERROR', transient: false });
  });
});

describe('token reads', () => {
  const ata = async (mint: Address, owner: Address, tokenProgram: Address) =>
    (await findAssociatedTokenPda({ mint, owner, tokenProgram }))[0];

  it('agrees with @solana/spl-token on program addresses and the sizes of mints and token accounts', () => {
    expect(TOKEN_PROGRAM_ADDRESS).toBe(TOKEN_PROGRAM_ID.toBase58());
    expect(getMintSize()).toBe(MINT_SIZE);
    expect(getTokenSize()).toBe(ACCOUNT_SIZE);
  });

  it.each([
    ['SPL Token', TOKEN_PROGRAM_ADDRESS],
    ['Token-2022', TOKEN_2022],
  ])(
    'lists holders of a %s mint: owners aggregated over accounts, zero balances left out',
    async (_, programAddress) => {
      const payer = await funded();
      const mint = await createMint(chain, payer, { programAddress });
      const [alice, bob, carol] = await Promise.all([newAddress(), newAddress(), newAddress()]);
      const [aliceAta, bobAta, carolAta] = await Promise.all(
        [alice, bob, carol].map((owner) => ata(mint, owner, programAddress)),
      );
      const aliceExtra = await createTokenAccount(chain, payer, { mint, owner: alice, programAddress });
      const mintTo = (token: Address, amount: bigint) =>
        getMintToInstruction({ mint, token, mintAuthority: payer, amount }, { programAddress });
      await chain.sendAndConfirm({
        feePayer: payer.address,
        instructions: [
          ...[
            [alice, aliceAta],
            [bob, bobAta],
            [carol, carolAta],
          ].map(([owner, account]) =>
            getCreateAssociatedTokenIdempotentInstruction({
              payer,
              ata: account as Address,
              owner: owner as Address,
              mint,
              tokenProgram: programAddress,
            }),
          ),
          mintTo(aliceAta as Address, 1_000n),
          mintTo(aliceExtra, 234n),
          mintTo(bobAta as Address, 5n),
        ],
      });
      const holders = await chain.listTokenHolders(mint);
      expect(holdersToMap(holders)).toEqual(
        new Map([
          [alice, 1_234n],
          [bob, 5n],
        ]),
      );
      expect(holders.pages).toBe(3);
      expect(await chain.getTokenAccountBalance(aliceExtra)).toBe(234n);
      expect(await chain.getTokenAccountBalance(carolAta as Address)).toBe(0n);
      expect(await chain.getTokenAccountBalance(await newAddress())).toBe(0n);
      const info = await chain.getMint(mint);
      expect(info).toEqual({
        address: mint,
        programId: programAddress,
        isToken2022: programAddress === TOKEN_2022,
        supply: 1_239n,
        decimals: 6,
        mintAuthority: payer.address,
        freezeAuthority: null,
        metadataPointer: null,
        metadata: null,
      });
    },
  );

  it('returns null for a missing mint and for an account that is not a mint', async () => {
    expect(await chain.getMint(await newAddress())).toBeNull();
    const wallet = await funded(SOL);
    expect(await chain.getMint(wallet.address)).toBeNull();
    // A token account, owned by the token program, is not a mint either.
    const mint = await createMint(chain, wallet);
    const account = await createTokenAccount(chain, wallet, { mint, owner: wallet.address });
    expect(await chain.getMint(account)).toBeNull();
  });

  it('decodes a mint only from a whole, initialized mint account', async () => {
    const payer = await funded();
    const classic = (await chain.getAccountInfo(await createMint(chain, payer)))?.data;
    const token2022 = (
      await chain.getAccountInfo(await createMint(chain, payer, { programAddress: TOKEN_2022 }))
    )?.data;
    if (!classic || !token2022) throw new Error('mints not created');
    const fields = {
      decimals: 6,
      supply: 0n,
      mintAuthority: payer.address,
      freezeAuthority: null,
      metadataPointer: null,
      metadata: null,
    };
    expect(decodeMint(classic, false)).toEqual(fields);
    expect(decodeMint(token2022, true)).toEqual(fields);
    // Truncated, empty or never initialized.
    expect(decodeMint(classic.subarray(0, MINT_SIZE - 1), false)).toBeNull();
    expect(decodeMint(token2022.subarray(0, MINT_SIZE - 1), true)).toBeNull();
    expect(decodeMint(Buffer.alloc(0), false)).toBeNull();
    expect(decodeMint(Buffer.alloc(0), true)).toBeNull();
    expect(decodeMint(Buffer.alloc(MINT_SIZE), false)).toBeNull();
    expect(decodeMint(Buffer.alloc(MINT_SIZE), true)).toBeNull();
    // A classic account of any other size is not a mint (a token account is 165 bytes).
    expect(decodeMint(Buffer.concat([classic, Buffer.alloc(ACCOUNT_SIZE - MINT_SIZE)]), false)).toBeNull();
  });

  // A Token-2022 account is a mint only when it is 82 bytes or its account-type byte (offset 165) says so: a
  // token account, a 83..165-byte buffer or a multisig must not decode as one (as spl-token's unpackMint).
  it('does not read a Token-2022 token account as a mint', async () => {
    const payer = await funded();
    const mint = await createMint(chain, payer, { programAddress: TOKEN_2022 });
    // An owner whose 14th byte is 1 puts a 1 at offset 45 of its token account (32 + 13).
    const ownerBytes = Uint8Array.from(getBase58Encoder().encode(await newAddress()));
    ownerBytes[13] = 1;
    const owner = getAddressDecoder().decode(ownerBytes);
    const account = await ata(mint, owner, TOKEN_2022);
    await chain.sendAndConfirm({
      feePayer: payer.address,
      instructions: [
        getCreateAssociatedTokenIdempotentInstruction({
          payer,
          ata: account,
          owner,
          mint,
          tokenProgram: TOKEN_2022,
        }),
      ],
    });
    const info = await chain.getAccountInfo(account);
    const data = info?.data;
    expect(data?.[ACCOUNT_SIZE]).toBe(2); // Token-2022 account type: Account
    expect(data?.[45]).toBe(1);
    // The reference reading refuses it.
    expect(() =>
      unpackMint(
        new PublicKey(account),
        info && { ...info, owner: new PublicKey(info.owner), lamports: Number(info.lamports) },
        TOKEN_2022_PROGRAM_ID,
      ),
    ).toThrow();
    expect(await chain.getMint(account)).toBeNull();
    expect(decodeMint(data ?? Buffer.alloc(0), true)).toBeNull();
    // Nor its first 100 bytes: a Token-2022 mint is exactly 82 bytes or longer than 165.
    expect(decodeMint(Buffer.from(data ?? []).subarray(0, 100), true)).toBeNull();
  });

  it('finds the signatures that touched an address', async () => {
    const wallet = await funded(SOL);
    const list = await chain.findSignatures(wallet.address);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ err: null, memo: null });
    expect(list[0]?.signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    expect(await chain.findSignatures(await newAddress())).toEqual([]);
  });
});

describe('transactions that land: compute budget, priority fee, polling', () => {
  const budgetOf = async (signature: string) => {
    const record = local.ledger.getTx(signature);
    if (!record) throw new Error(`no record of ${signature}`);
    return { record, budget: budgetOfTransaction(decodeWireTransaction(record.raw)) };
  };

  /** `slots` recent slots in which a transaction at `microLamports` wrote `hot` (one per slot), then a quiet one. */
  const congest = async (hot: Address, microLamports: bigint, slots: number) => {
    const from = await funded(10n * SOL);
    local.ledger.advance(PRIORITIZATION_FEE_SLOTS);
    for (let i = 0; i < slots; i++) {
      await chain.sendAndConfirm(transfer(from, hot, 1_000_000n), {
        budget: { units: 1_000, microLamports, signatures: 1, fee: 0n },
      });
      local.ledger.advance(1);
    }
  };

  it('sets the limit from a simulation plus the margin, and bids nothing on a quiet chain', async () => {
    const from = await funded();
    const to = await newAddress();
    const sent: bigint[] = [];
    local.ledger.advance(PRIORITIZATION_FEE_SLOTS);
    const signature = await chain.sendAndConfirm(transfer(from, to, SOL), {
      onSent: (s) => void sent.push(s.fee),
    });
    const { record, budget } = await budgetOf(signature);
    expect(budget.limitSet).toBe(true);
    expect(budget.units).toBe(unitLimitFor(record.computeUnits));
    expect(budget.units).toBeGreaterThanOrEqual(record.computeUnits + 1_000);
    expect(budget.microLamports).toBe(0n);
    expect(sent).toEqual([5_000n]);
    expect(record.fee).toBe(5_000);
    expect(await chain.getBalance(from.address)).toBe(9n * SOL - 5_000n);
  });

  it('serves per-slot prioritization fees like a validator: 150 slots, zero when quiet, per written account', async () => {
    const hot = await newAddress();
    const cold = await newAddress();
    await congest(hot, 7_000n, 3);
    const rpc = rawRpc();
    const forHot = await rpc.getRecentPrioritizationFees([hot]).send();
    expect(forHot).toHaveLength(PRIORITIZATION_FEE_SLOTS);
    const slots = forHot.map((f) => Number(f.slot));
    expect(slots).toEqual([...slots].sort((a, b) => a - b));
    expect(forHot.filter((f) => f.prioritizationFee === 7_000n)).toHaveLength(3);
    expect(forHot.filter((f) => f.prioritizationFee === 0n)).toHaveLength(PRIORITIZATION_FEE_SLOTS - 3);
    // An account no transaction wrote stays at zero; without accounts, each slot's lowest price.
    const forCold = await rpc.getRecentPrioritizationFees([cold]).send();
    expect(forCold.every((f) => f.prioritizationFee === 0n)).toBe(true);
    const forAll = await rpc.getRecentPrioritizationFees().send();
    expect(forAll.filter((f) => f.prioritizationFee === 7_000n)).toHaveLength(3);
    local.ledger.advance(PRIORITIZATION_FEE_SLOTS);
    expect(
      (await rpc.getRecentPrioritizationFees([hot]).send()).every((f) => f.prioritizationFee === 0n),
    ).toBe(true);
  });

  it('bids the 90th percentile of the written accounts’ recent fees, and the chain charges it as reported', async () => {
    const hot = await newAddress();
    await congest(hot, 20_000n, 120);
    const from = await funded();
    const sent: bigint[] = [];
    const before = await chain.getBalance(from.address);
    const signature = await chain.sendAndConfirm(transfer(from, hot, SOL), {
      onSent: (s) => void sent.push(s.fee),
    });
    const { record, budget } = await budgetOf(signature);
    expect(budget.microLamports).toBe(20_000n);
    const fee = 5_000n + (20_000n * BigInt(budget.units) + 999_999n) / 1_000_000n;
    expect(sent).toEqual([fee]);
    expect(BigInt(record.fee)).toBe(fee);
    expect(await chain.getBalance(from.address)).toBe(before - SOL - fee);
    const tx = await rawRpc()
      .getTransaction(signature as Signature, { encoding: 'json' })
      .send();
    expect(tx?.meta?.fee).toBe(fee);
  });

  it('caps the price by the setting and by the fee bound a caller reserved', async () => {
    const hot = await newAddress();
    await congest(hot, 5_000_000n, 120);
    const from = await funded();
    const capped = makeChain({ rpcUrl: local.url, pollMs: 50, priorityFeeMaxMicroLamports: 300_000 });
    const plan = transfer(from, hot, SOL);
    expect((await capped.estimateBudget(plan)).microLamports).toBe(300_000n);
    // The default cap (1 lamport a unit) holds too.
    expect((await chain.estimateBudget(plan)).microLamports).toBe(1_000_000n);
    const bounded = await chain.estimateBudget(plan, { maxFeeLamports: 5_100n });
    expect(bounded.fee).toBeLessThanOrEqual(5_100n);
    expect(bounded.microLamports).toBeGreaterThan(0n);
    expect(await caught(chain.estimateBudget(plan, { maxFeeLamports: 4_999n }))).toMatchObject({
      code: 'SIMULATION_FAILED',
    });
  });

  it('polls the status every pollMs and reads the block height only every few polls', async () => {
    const from = await funded();
    const counts = new Map<string, number>();
    const realFetch = globalThis.fetch;
    globalThis.fetch = async (input, init) => {
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }) : {};
      if (body.method) counts.set(body.method, (counts.get(body.method) ?? 0) + 1);
      return realFetch(input, init);
    };
    try {
      local.injectFault({ method: 'sendTransaction', drop: true });
      const polling = makeChain({ rpcUrl: local.url, pollMs: 50, resendMs: 60_000 });
      const error = await caught(
        polling.sendAndConfirm(transfer(from, await newAddress(), SOL), { timeoutMs: 1_000 }),
      );
      expect(error.code).toBe('CONFIRM_TIMEOUT');
    } finally {
      globalThis.fetch = realFetch;
    }
    const statuses = counts.get('getSignatureStatuses') ?? 0;
    expect(statuses).toBeGreaterThanOrEqual(10);
    // Each expiry check reads the height before (and, once past it, after) the status: at most two a check.
    expect(counts.get('getBlockHeight') ?? 0).toBeLessThanOrEqual(2 * Math.ceil(statuses / 5));
  });
});
