// The chain adapter (lib/chain) against the local chain server started in this file on a free port.
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createInitializeAccountInstruction,
  createInitializeMintInstruction,
  createMintToInstruction,
  getAccountLen,
  getAssociatedTokenAddressSync,
  MINT_SIZE,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
} from '@solana/spl-token';
import { Keypair, type PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Chain, ChainError, makeChain } from '../../lib/chain/index.js';
import { type LocalChain, startLocalChain } from '../../scripts/chain/rpc-server.js';

const SOL = 1_000_000_000n;

let local: LocalChain;
let chain: Chain;

const funded = async (lamports = 10n * SOL) => {
  const keypair = Keypair.generate();
  await chain.airdrop(keypair.publicKey, lamports);
  return keypair;
};

const transfer = (from: Keypair, to: PublicKey, lamports: bigint) =>
  new Transaction().add(SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports }));

const caught = async (promise: Promise<unknown>): Promise<ChainError> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ChainError);
  return error as ChainError;
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
    const wallet = Keypair.generate();
    const signature = await chain.airdrop(wallet.publicKey, 2n * SOL);
    expect(await chain.getBalance(wallet.publicKey)).toBe(2n * SOL);
    expect(await chain.getSignatureStatus(signature)).toMatchObject({ status: 'finalized' });
    expect(await chain.getBalance(Keypair.generate().publicKey)).toBe(0n);
  });

  it('refuses airdrops against a non-local RPC', async () => {
    const remote = makeChain({ rpcUrl: 'https://rpc.example.invalid' });
    const error = await caught(remote.airdrop(Keypair.generate().publicKey, SOL));
    expect(error.code).toBe('NOT_LOCAL');
  });

  it('sends and confirms by polling signature statuses, reporting the signature before sending', async () => {
    const from = await funded();
    const to = Keypair.generate().publicKey;
    const sent: string[] = [];
    const signature = await chain.sendAndConfirm(transfer(from, to, SOL), [from], {
      onSent: ({ signature: s }) => {
        sent.push(s);
      },
    });
    expect(sent).toEqual([signature]);
    expect(await chain.getBalance(to)).toBe(SOL);
    expect(await chain.getSignatureStatus(signature)).toMatchObject({ status: 'finalized' });
    expect(
      await chain.getSignatureStatus('1111111111111111111111111111111111111111111111111111111111111111'),
    ).toEqual({
      status: 'unknown',
    });
  });

  it('fails with a permanent ChainError carrying the program logs when preflight fails', async () => {
    const from = await funded(SOL);
    const error = await caught(
      chain.sendAndConfirm(transfer(from, Keypair.generate().publicKey, 5n * SOL), [from]),
    );
    expect(error.name).toBe('ChainError');
    expect(error.transient).toBe(false);
    expect(error.code).toBe('SIMULATION_FAILED');
    expect(error.message).toMatch(/custom program error: 0x1/);
    expect(error.logs).toContain(
      'Program 11111111111111111111111111111111 failed: custom program error: 0x1',
    );
  });

  it('reports a transaction that landed and failed as TRANSACTION_FAILED with its logs', async () => {
    const from = await funded(SOL);
    const tx = transfer(from, Keypair.generate().publicKey, 5n * SOL);
    const { blockhash, lastValidBlockHeight } = await chain.connection.getLatestBlockhash();
    tx.recentBlockhash = blockhash;
    tx.sign(from);
    const signature = await chain.connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    const error = await caught(chain.confirm({ signature, lastValidBlockHeight }));
    expect(error.code).toBe('TRANSACTION_FAILED');
    expect(error.signature).toBe(signature);
    expect(error.logs.join('\n')).toMatch(/insufficient lamports/);
    expect(await chain.getSignatureStatus(signature)).toMatchObject({ status: 'failed' });
  });

  it('refuses to send a transaction missing a signature', async () => {
    const from = await funded(SOL);
    const other = Keypair.generate();
    const tx = transfer(from, other.publicKey, SOL).add(
      SystemProgram.transfer({ fromPubkey: other.publicKey, toPubkey: from.publicKey, lamports: 1 }),
    );
    const error = await caught(chain.sendAndConfirm(tx, [from]));
    expect(error.code).toBe('MISSING_SIGNATURE');
  });

  it('classifies HTTP 503/429, timeouts and unhealthy nodes as ChainTransientError', async () => {
    local.injectFault({ method: 'getBalance', status: 503 });
    const unavailable = await caught(chain.getBalance(Keypair.generate().publicKey));
    expect(unavailable).toMatchObject({
      name: 'ChainTransientError',
      transient: true,
      code: 'RPC_UNAVAILABLE',
    });
    local.injectFault({ method: 'getAccountInfo', status: 429 });
    expect((await caught(chain.getAccountInfo(Keypair.generate().publicKey))).transient).toBe(true);
    local.injectFault({ method: 'getBalance', delayMs: 1500 });
    expect((await caught(chain.getBalance(Keypair.generate().publicKey))).message).toMatch(/timed out/);
    local.injectFault({
      method: 'getSignatureStatuses',
      rpcError: { code: -32005, message: 'Node is unhealthy' },
    });
    expect(
      (
        await caught(
          chain.getSignatureStatus('1111111111111111111111111111111111111111111111111111111111111111'),
        )
      ).transient,
    ).toBe(true);
    local.injectFault({ method: 'getAccountInfo', rpcError: { code: -32602, message: 'Invalid params' } });
    expect((await caught(chain.getAccountInfo(Keypair.generate().publicKey))).transient).toBe(false);
  });

  it('keeps confirming through a failed send and a flaky status poll', async () => {
    const from = await funded();
    const to = Keypair.generate().publicKey;
    local.injectFault({ method: 'sendTransaction', status: 502 });
    local.injectFault({ method: 'getSignatureStatuses', status: 503, times: 2 });
    const resending = makeChain({ rpcUrl: local.url, pollMs: 50, resendMs: 100, requestTimeoutMs: 1000 });
    await resending.sendAndConfirm(transfer(from, to, SOL), [from], { timeoutMs: 5000 });
    expect(await chain.getBalance(to)).toBe(SOL);
  });

  it('re-broadcasts a dropped transaction until it lands', async () => {
    const from = await funded();
    const to = Keypair.generate().publicKey;
    local.injectFault({ method: 'sendTransaction', drop: true });
    const resending = makeChain({ rpcUrl: local.url, pollMs: 50, resendMs: 100 });
    await resending.sendAndConfirm(transfer(from, to, SOL), [from], { timeoutMs: 5000 });
    expect(await chain.getBalance(to)).toBe(SOL);
  });

  it('gives up with transient CONFIRM_TIMEOUT, and BLOCKHASH_EXPIRED once the blockhash can no longer land', async () => {
    const from = await funded();
    local.injectFault({ method: 'sendTransaction', drop: true, times: 100 });
    try {
      const timeout = await caught(
        chain.sendAndConfirm(transfer(from, Keypair.generate().publicKey, SOL), [from], { timeoutMs: 300 }),
      );
      expect(timeout).toMatchObject({ code: 'CONFIRM_TIMEOUT', name: 'ChainTransientError' });
      const pending = chain.sendAndConfirm(transfer(from, Keypair.generate().publicKey, SOL), [from], {
        timeoutMs: 5000,
      });
      await new Promise((r) => setTimeout(r, 200));
      local.ledger.advance(151);
      const expired = await caught(pending);
      expect(expired).toMatchObject({ code: 'BLOCKHASH_EXPIRED', transient: true });
      expect(await chain.getBalance(from.publicKey)).toBe(10n * SOL);
    } finally {
      local.clearFaults();
    }
  });
});

describe('token reads', () => {
  const createMint = async (payer: Keypair, programId: PublicKey) => {
    const mint = Keypair.generate();
    const tx = new Transaction().add(
      SystemProgram.createAccount({
        fromPubkey: payer.publicKey,
        newAccountPubkey: mint.publicKey,
        space: MINT_SIZE,
        lamports: Number(await chain.getMinimumBalanceForRentExemption(MINT_SIZE)),
        programId,
      }),
      createInitializeMintInstruction(mint.publicKey, 6, payer.publicKey, null, programId),
    );
    await chain.sendAndConfirm(tx, [payer, mint]);
    return mint.publicKey;
  };

  /** A second, non-associated token account for the same owner. */
  const extraAccount = async (payer: Keypair, mint: PublicKey, owner: PublicKey, programId: PublicKey) => {
    const account = Keypair.generate();
    const space = getAccountLen([]);
    await chain.sendAndConfirm(
      new Transaction().add(
        SystemProgram.createAccount({
          fromPubkey: payer.publicKey,
          newAccountPubkey: account.publicKey,
          space,
          lamports: Number(await chain.getMinimumBalanceForRentExemption(space)),
          programId,
        }),
        createInitializeAccountInstruction(account.publicKey, mint, owner, programId),
      ),
      [payer, account],
    );
    return account.publicKey;
  };

  it.each([
    ['SPL Token', TOKEN_PROGRAM_ID],
    ['Token-2022', TOKEN_2022_PROGRAM_ID],
  ])(
    'lists holders of a %s mint: owners aggregated over accounts, zero balances left out',
    async (_, programId) => {
      const payer = await funded();
      const mint = await createMint(payer, programId);
      const alice = Keypair.generate().publicKey;
      const bob = Keypair.generate().publicKey;
      const carol = Keypair.generate().publicKey;
      const ata = (owner: PublicKey) => getAssociatedTokenAddressSync(mint, owner, false, programId);
      const aliceExtra = await extraAccount(payer, mint, alice, programId);
      await chain.sendAndConfirm(
        new Transaction().add(
          ...[alice, bob, carol].map((o) =>
            createAssociatedTokenAccountIdempotentInstruction(payer.publicKey, ata(o), o, mint, programId),
          ),
          createMintToInstruction(mint, ata(alice), payer.publicKey, 1_000n, [], programId),
          createMintToInstruction(mint, aliceExtra, payer.publicKey, 234n, [], programId),
          createMintToInstruction(mint, ata(bob), payer.publicKey, 5n, [], programId),
        ),
        [payer],
      );
      const holders = await chain.listTokenHolders(mint);
      expect(holders).toEqual(
        new Map([
          [alice.toBase58(), 1_234n],
          [bob.toBase58(), 5n],
        ]),
      );
      expect(await chain.getTokenAccountBalance(aliceExtra)).toBe(234n);
      const info = await chain.getMint(mint);
      expect(info).toMatchObject({
        programId: programId.toBase58(),
        isToken2022: programId.equals(TOKEN_2022_PROGRAM_ID),
        supply: 1_239n,
        decimals: 6,
        mintAuthority: payer.publicKey.toBase58(),
        metadata: null,
      });
    },
  );

  it('returns null for a missing mint and for an account that is not a mint', async () => {
    expect(await chain.getMint(Keypair.generate().publicKey)).toBeNull();
    const wallet = await funded(SOL);
    expect(await chain.getMint(wallet.publicKey)).toBeNull();
  });

  it('finds the signatures that touched an address', async () => {
    const wallet = await funded(SOL);
    const list = await chain.findSignatures(wallet.publicKey);
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ err: null, memo: null });
  });
});
