// The local chain's JSON-RPC server, driven by unmodified @solana/web3.js and @solana/spl-token and by raw
// JSON-RPC where the wire shape itself is what matters. Each test file starts its own chain on a free port.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createInitializeMintInstruction,
  createMintToInstruction,
  getAssociatedTokenAddressSync,
  MINT_SIZE,
  TOKEN_PROGRAM_ID,
} from '@solana/spl-token';
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  PublicKey,
  SendTransactionError,
  SystemProgram,
  sendAndConfirmTransaction,
  Transaction,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalChain, startLocalChain } from '../../scripts/chain/rpc-server.js';

const MEMO = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

let chain: LocalChain;
let connection: Connection;

const rpc = async (method: string, params: unknown[] = []) => {
  const response = await fetch(chain.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await response.json()) as {
    result?: unknown;
    error?: { code: number; message: string; data?: { err?: unknown; logs?: string[] } };
  };
};

const funded = async (sol = 10) => {
  const keypair = Keypair.generate();
  const signature = await connection.requestAirdrop(keypair.publicKey, sol * LAMPORTS_PER_SOL);
  await connection.confirmTransaction({ signature, ...(await connection.getLatestBlockhash()) });
  return keypair;
};

const signedTransfer = async (from: Keypair, to: PublicKey, lamports: number) => {
  const tx = new Transaction({
    feePayer: from.publicKey,
    recentBlockhash: (await connection.getLatestBlockhash()).blockhash,
  }).add(SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports }));
  tx.sign(from);
  return tx;
};

beforeAll(async () => {
  chain = await startLocalChain({ port: 0 });
  connection = new Connection(chain.url, { commitment: 'confirmed', wsEndpoint: chain.wsUrl });
});

afterAll(async () => {
  await chain.stop();
});

describe('local chain RPC', () => {
  it('serves the node info web3.js asks for', async () => {
    expect(await connection.getVersion()).toEqual({ 'solana-core': expect.any(String), 'feature-set': 0 });
    expect(await connection.getGenesisHash()).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect((await rpc('getHealth')).result).toBe('ok');
    expect(await connection.getSlot()).toBeGreaterThan(0);
    expect(await connection.getBlockHeight()).toBe(await connection.getSlot());
    const epoch = await connection.getEpochInfo();
    expect(epoch.slotsInEpoch).toBe(432_000);
    expect(await connection.getMinimumBalanceForRentExemption(0)).toBe(890_880);
    expect((await rpc('noSuchMethod')).error?.code).toBe(-32601);
  });

  it('airdrops from the faucet and reports the balance and signature status', async () => {
    const wallet = Keypair.generate();
    const signature = await connection.requestAirdrop(wallet.publicKey, 3 * LAMPORTS_PER_SOL);
    expect(await connection.getBalance(wallet.publicKey)).toBe(3 * LAMPORTS_PER_SOL);
    const { value } = await connection.getSignatureStatuses(
      [signature, '1111111111111111111111111111111111111111111111111111111111111111'],
      {
        searchTransactionHistory: true,
      },
    );
    expect(value[0]).toMatchObject({ err: null, confirmationStatus: 'finalized' });
    expect(value[1]).toBeNull();
  });

  it('confirms through the WebSocket signatureSubscribe that sendAndConfirmTransaction uses', async () => {
    const from = await funded();
    const to = Keypair.generate().publicKey;
    const signature = await sendAndConfirmTransaction(
      connection,
      new Transaction().add(
        SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports: 1_000_000 }),
      ),
      [from],
    );
    expect(await connection.getBalance(to)).toBe(1_000_000);
    const tx = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(tx?.meta?.fee).toBe(5000);
    expect(tx?.meta?.preBalances[1]).toBe(0);
    expect(tx?.meta?.postBalances[1]).toBe(1_000_000);
    expect(tx?.meta?.logMessages).toContain('Program 11111111111111111111111111111111 success');
    const parsed = await connection.getParsedTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(parsed?.transaction.message.accountKeys[0]?.signer).toBe(true);
  });

  it('speaks plain WebSocket JSON-RPC: signature and slot subscriptions, errors for the rest', async () => {
    const wallet = Keypair.generate();
    const signature = await connection.requestAirdrop(wallet.publicKey, LAMPORTS_PER_SOL);
    const socket = new WebSocket(chain.wsUrl);
    const messages: Array<{ id?: number; result?: unknown; method?: string; error?: { code: number } }> = [];
    socket.addEventListener('message', (event) => messages.push(JSON.parse(String(event.data))));
    await new Promise((resolve) => socket.addEventListener('open', resolve, { once: true }));
    const send = (id: number, method: string, params: unknown[] = []) =>
      socket.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    send(1, 'signatureSubscribe', [signature, { commitment: 'confirmed' }]);
    send(2, 'slotSubscribe');
    send(3, 'accountSubscribe', [wallet.publicKey.toBase58()]);
    socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'ping' })); // heartbeat: no answer
    send(4, 'x'.repeat(70_000)); // a frame with a 64-bit length
    const deadline = Date.now() + 3000;
    while (Date.now() < deadline && !messages.some((m) => m.method === 'slotNotification'))
      await new Promise((r) => setTimeout(r, 20));
    socket.close();
    expect(messages.find((m) => m.id === 1)?.result).toEqual(expect.any(Number));
    expect(messages.find((m) => m.method === 'signatureNotification')).toMatchObject({
      params: { result: { value: { err: null } } },
    });
    expect(messages.find((m) => m.method === 'slotNotification')).toBeDefined();
    expect(messages.find((m) => m.id === 3)?.error?.code).toBe(-32601);
    expect(messages.find((m) => m.id === 4)?.error?.code).toBe(-32601);
  });

  it('returns preflight failures in the validator error shape, with program logs, and commits nothing', async () => {
    const from = await funded(1);
    const tx = await signedTransfer(from, Keypair.generate().publicKey, 5 * LAMPORTS_PER_SOL);
    const { error } = await rpc('sendTransaction', [
      tx.serialize().toString('base64'),
      { encoding: 'base64' },
    ]);
    expect(error?.code).toBe(-32002);
    expect(error?.message).toBe(
      'Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1',
    );
    expect(error?.data?.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(error?.data?.logs).toContain(
      'Program 11111111111111111111111111111111 failed: custom program error: 0x1',
    );
    expect(await connection.getBalance(from.publicKey)).toBe(LAMPORTS_PER_SOL);
    const thrown = await connection.sendRawTransaction(tx.serialize()).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(SendTransactionError);
    expect((thrown as SendTransactionError).logs?.join('\n')).toMatch(/insufficient lamports/);
  });

  it('lands a failing transaction sent without preflight: fee charged, status err, logs kept', async () => {
    const from = await funded(1);
    const tx = await signedTransfer(from, Keypair.generate().publicKey, 5 * LAMPORTS_PER_SOL);
    const signature = await connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    const { value } = await connection.getSignatureStatuses([signature]);
    expect(value[0]?.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(await connection.getBalance(from.publicKey)).toBe(LAMPORTS_PER_SOL - 5000);
    const landed = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(landed?.meta?.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(landed?.meta?.logMessages?.join('\n')).toMatch(/insufficient lamports/);
  });

  it('accepts base58 transactions and rejects duplicates and bad signatures', async () => {
    const from = await funded(1);
    const tx = await signedTransfer(from, Keypair.generate().publicKey, 1_000_000);
    const bs58 = (await import('bs58')).default;
    const encoded = bs58.encode(tx.serialize());
    expect((await rpc('sendTransaction', [encoded])).result).toBe(bs58.encode(tx.signature as Buffer));
    expect((await rpc('sendTransaction', [encoded])).error?.data?.err).toBe('AlreadyProcessed');
    const forged = tx.serialize();
    forged[10] = (forged[10] ?? 0) ^ 0xff;
    expect((await rpc('sendTransaction', [bs58.encode(forged)])).error?.code).toBe(-32003);
  });

  it('simulates without committing, reporting logs and units', async () => {
    const from = await funded(1);
    const tx = await signedTransfer(from, Keypair.generate().publicKey, 1_000_000);
    const { value } = await connection.simulateTransaction(tx);
    expect(value.err).toBeNull();
    expect(value.logs?.length).toBeGreaterThan(0);
    expect(value.unitsConsumed).toBeGreaterThan(0);
    expect(await connection.getBalance(from.publicKey)).toBe(LAMPORTS_PER_SOL);
  });

  it('serves SPL token reads: accounts by owner, balances, supply, program accounts with filters, jsonParsed', async () => {
    const payer = await funded();
    const mint = Keypair.generate();
    const owner = Keypair.generate().publicKey;
    const ata = getAssociatedTokenAddressSync(mint.publicKey, owner);
    const tx = new Transaction().add(
      SystemProgram.createAccount({
        fromPubkey: payer.publicKey,
        newAccountPubkey: mint.publicKey,
        space: MINT_SIZE,
        lamports: await connection.getMinimumBalanceForRentExemption(MINT_SIZE),
        programId: TOKEN_PROGRAM_ID,
      }),
      createInitializeMintInstruction(mint.publicKey, 2, payer.publicKey, null),
      createAssociatedTokenAccountIdempotentInstruction(payer.publicKey, ata, owner, mint.publicKey),
      createMintToInstruction(mint.publicKey, ata, payer.publicKey, 12_345n),
    );
    await sendAndConfirmTransaction(connection, tx, [payer, mint]);
    expect((await connection.getTokenAccountBalance(ata)).value).toEqual({
      amount: '12345',
      decimals: 2,
      uiAmount: 123.45,
      uiAmountString: '123.45',
    });
    expect((await connection.getTokenSupply(mint.publicKey)).value.amount).toBe('12345');
    const byOwner = await connection.getTokenAccountsByOwner(owner, { mint: mint.publicKey });
    expect(byOwner.value.map((a) => a.pubkey.toBase58())).toEqual([ata.toBase58()]);
    const parsed = await connection.getParsedTokenAccountsByOwner(owner, { programId: TOKEN_PROGRAM_ID });
    expect(parsed.value[0]?.account.data.parsed.info.tokenAmount.amount).toBe('12345');
    const filtered = await connection.getProgramAccounts(TOKEN_PROGRAM_ID, {
      filters: [{ dataSize: 165 }, { memcmp: { offset: 0, bytes: mint.publicKey.toBase58() } }],
    });
    expect(filtered.map((a) => a.pubkey.toBase58())).toEqual([ata.toBase58()]);
    const byOwnerFilter = await connection.getProgramAccounts(TOKEN_PROGRAM_ID, {
      filters: [{ memcmp: { offset: 32, bytes: owner.toBase58() } }],
      dataSlice: { offset: 64, length: 8 },
    });
    expect(byOwnerFilter).toHaveLength(1);
    expect(byOwnerFilter[0]?.account.data.readBigUInt64LE(0)).toBe(12_345n);
    const mints = await connection.getProgramAccounts(TOKEN_PROGRAM_ID, {
      filters: [{ dataSize: MINT_SIZE }],
    });
    expect(mints.map((a) => a.pubkey.toBase58())).toContain(mint.publicKey.toBase58());
    const mintParsed = await connection.getParsedAccountInfo(mint.publicKey);
    const mintData = mintParsed.value?.data as { parsed: { info: unknown } } | undefined;
    expect(mintData?.parsed.info).toMatchObject({
      decimals: 2,
      supply: '12345',
      mintAuthority: payer.publicKey.toBase58(),
    });
  });

  it('lists signatures for an address, newest first, with memos', async () => {
    const from = await funded(1);
    const tx = await signedTransfer(from, Keypair.generate().publicKey, 1_000_000);
    tx.add(new TransactionInstruction({ programId: MEMO, keys: [], data: Buffer.from('hello arcadia') }));
    tx.sign(from);
    const signature = await connection.sendRawTransaction(tx.serialize());
    const list = await connection.getSignaturesForAddress(from.publicKey);
    expect(list[0]).toMatchObject({ signature, err: null, memo: '[13] hello arcadia' });
    expect(list).toHaveLength(2); // the transfer and the airdrop before it
  });

  it('requires maxSupportedTransactionVersion for v0 transactions', async () => {
    const from = await funded(1);
    const message = new TransactionMessage({
      payerKey: from.publicKey,
      recentBlockhash: (await connection.getLatestBlockhash()).blockhash,
      instructions: [
        SystemProgram.transfer({
          fromPubkey: from.publicKey,
          toPubkey: Keypair.generate().publicKey,
          lamports: 1_000_000,
        }),
      ],
    }).compileToV0Message();
    const tx = new VersionedTransaction(message);
    tx.sign([from]);
    const signature = await connection.sendTransaction(tx);
    expect((await rpc('getTransaction', [signature])).error?.code).toBe(-32015);
    const landed = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 });
    expect(landed?.version).toBe(0);
  });

  it('answers batches and injected faults', async () => {
    const response = await fetch(chain.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'getSlot' },
        { jsonrpc: '2.0', id: 2, method: 'getHealth' },
      ]),
    });
    expect(((await response.json()) as Array<{ id: number }>).map((r) => r.id)).toEqual([1, 2]);
    chain.injectFault({ method: 'getSlot', status: 503 });
    expect(
      (
        await fetch(chain.url, {
          method: 'POST',
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot' }),
        })
      ).status,
    ).toBe(503);
    expect((await rpc('getSlot')).result).toBeGreaterThan(0);
  });
});

describe('local chain slots', () => {
  it('advances slots with time and expires blockhashes after 150 blocks', async () => {
    // Its own chain: jumping 151 slots would stale the blockhash web3.js caches for the shared connection.
    const own = await startLocalChain({ port: 0 });
    const conn = new Connection(own.url, 'confirmed');
    try {
      const { blockhash, lastValidBlockHeight } = await conn.getLatestBlockhash();
      expect(lastValidBlockHeight).toBe((await conn.getBlockHeight()) + 150);
      const slot = await conn.getSlot();
      await new Promise((r) => setTimeout(r, 900));
      expect(await conn.getSlot()).toBeGreaterThan(slot);
      expect((await conn.isBlockhashValid(blockhash)).value).toBe(true);
      const from = Keypair.generate();
      await conn.requestAirdrop(from.publicKey, LAMPORTS_PER_SOL);
      const stale = new Transaction({ feePayer: from.publicKey, recentBlockhash: blockhash }).add(
        SystemProgram.transfer({
          fromPubkey: from.publicKey,
          toPubkey: Keypair.generate().publicKey,
          lamports: 1_000_000,
        }),
      );
      stale.sign(from);
      expect((await conn.simulateTransaction(stale)).value.err).toBeNull();
      own.ledger.advance(151);
      expect((await conn.isBlockhashValid(blockhash)).value).toBe(false);
      const sent = await conn.sendRawTransaction(stale.serialize()).catch((e: unknown) => e);
      expect((sent as SendTransactionError).message).toMatch(/Blockhash not found/);
      expect(await conn.getFeeForMessage(stale.compileMessage())).toMatchObject({ value: null });
    } finally {
      await own.stop();
    }
  });
});

describe('local chain persistence', () => {
  it('restores accounts, token indexes, history and slot from its data folder', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'arcadia-chain-'));
    try {
      const first = await startLocalChain({ port: 0, dataDir });
      const conn = new Connection(first.url, 'confirmed');
      const wallet = Keypair.generate();
      const airdrop = await conn.requestAirdrop(wallet.publicKey, 2 * LAMPORTS_PER_SOL);
      const mint = Keypair.generate();
      const ata = getAssociatedTokenAddressSync(mint.publicKey, wallet.publicKey);
      const tx = new Transaction({
        feePayer: wallet.publicKey,
        recentBlockhash: (await conn.getLatestBlockhash()).blockhash,
      }).add(
        SystemProgram.createAccount({
          fromPubkey: wallet.publicKey,
          newAccountPubkey: mint.publicKey,
          space: MINT_SIZE,
          lamports: await conn.getMinimumBalanceForRentExemption(MINT_SIZE),
          programId: TOKEN_PROGRAM_ID,
        }),
        createInitializeMintInstruction(mint.publicKey, 6, wallet.publicKey, null),
        createAssociatedTokenAccountIdempotentInstruction(
          wallet.publicKey,
          ata,
          wallet.publicKey,
          mint.publicKey,
        ),
        createMintToInstruction(mint.publicKey, ata, wallet.publicKey, 777n),
      );
      tx.sign(wallet, mint);
      await conn.sendRawTransaction(tx.serialize());
      const balance = await conn.getBalance(wallet.publicKey);
      const slot = await conn.getSlot();
      const genesis = await conn.getGenesisHash();
      await first.stop();

      const second = await startLocalChain({ port: 0, dataDir });
      try {
        const again = new Connection(second.url, 'confirmed');
        expect(await again.getBalance(wallet.publicKey)).toBe(balance);
        expect((await again.getTokenAccountBalance(ata)).value.amount).toBe('777');
        const holders = await again.getProgramAccounts(TOKEN_PROGRAM_ID, {
          filters: [{ memcmp: { offset: 0, bytes: mint.publicKey.toBase58() } }],
        });
        expect(holders.map((h) => h.pubkey.toBase58())).toEqual([ata.toBase58()]);
        expect(
          (await again.getSignatureStatuses([airdrop], { searchTransactionHistory: true })).value[0]?.err,
        ).toBeNull();
        expect(await again.getSlot()).toBeGreaterThanOrEqual(slot);
        expect(await again.getGenesisHash()).toBe(genesis);
        // The restored chain keeps executing: the faucet and programs still work.
        const more = await again.requestAirdrop(wallet.publicKey, LAMPORTS_PER_SOL);
        expect(more).toBeTruthy();
        expect(await again.getBalance(wallet.publicKey)).toBe(balance + LAMPORTS_PER_SOL);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
