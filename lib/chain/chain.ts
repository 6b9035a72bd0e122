// The one adapter all chain work goes through (DESIGN §5): @solana/kit's RPC client over an RPC URL, commitment
// `confirmed`, confirmations by polling getSignatureStatuses against a deadline (no WebSockets: Lambda), every
// failure classified into a ChainError. kit replaced @solana/web3.js 1.x: it tree-shakes to what a function
// uses and loads in a few ms where web3.js + spl-token took ~100 ms of every chain function's cold start.
import {
  type Address,
  appendTransactionMessageInstructions,
  type Base64EncodedWireTransaction,
  type Blockhash,
  createDefaultRpcTransport,
  createSolanaRpcFromTransport,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getPublicKeyFromAddress,
  getSignatureFromTransaction,
  type Instruction,
  partiallySignTransactionMessageWithSigners,
  type RpcTransport,
  type Signature,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Transaction,
  address as toAddress,
  lamports as toLamports,
  verifySignature,
} from '@solana/kit';
import bs58 from 'bs58';
import { ChainError, fromRpcAnswer, toChainError } from './errors.js';
import { decodeMint, TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from './token.js';

const COMMITMENT = 'confirmed' as const;

export type AddressLike = Address | string;

/** An account as read from chain. */
export interface AccountInfo {
  owner: string;
  lamports: bigint;
  executable: boolean;
  data: Buffer;
}

/** A sent transaction: enough to resume confirming it, or to know when it can no longer land. */
export interface SentTransaction {
  signature: string;
  lastValidBlockHeight: number;
}

/**
 * What to send: instructions whose signer accounts carry their signers (kit KeyPairSigners sign here; a
 * NoopSigner stands for a wallet that signs through `cosign`), and the fee payer.
 */
export interface TransactionPlan {
  feePayer: Address;
  instructions: readonly Instruction[];
}

export interface SendOptions {
  /** Overall deadline for sending and confirming. Default 30 000. */
  timeoutMs?: number;
  /** Adds the remaining signatures after the local signers (the user's embedded wallet). */
  cosign?: (tx: Transaction) => Promise<Transaction>;
  /** Called with the signature before the transaction is sent, so a caller can persist it first. */
  onSent?: (sent: SentTransaction) => void | Promise<void>;
}

export type SignatureState =
  | { status: 'unknown' }
  | { status: 'processed' | 'confirmed' | 'finalized'; slot: number }
  | { status: 'failed'; slot: number; err: unknown };

export interface TokenMetadataInfo {
  name: string;
  symbol: string;
  uri: string;
  updateAuthority: string | null;
  additionalMetadata: Array<[string, string]>;
}

/** A mint as read from chain (either token program). */
export interface MintInfo {
  address: string;
  programId: string;
  isToken2022: boolean;
  decimals: number;
  supply: bigint;
  mintAuthority: string | null;
  freezeAuthority: string | null;
  metadataPointer: { authority: string | null; metadataAddress: string | null } | null;
  metadata: TokenMetadataInfo | null;
}

export interface SignatureInfo {
  signature: string;
  slot: number;
  err: unknown;
  memo: string | null;
  blockTime: number | null;
}

export interface Chain {
  readonly rpcUrl: string;
  /** Lamports held by an address (0 when the account does not exist). */
  getBalance(address: AddressLike): Promise<bigint>;
  /** Raw account, or null when it does not exist. */
  getAccountInfo(address: AddressLike): Promise<AccountInfo | null>;
  /** Rent-exempt minimum for an account of `size` bytes. */
  getMinimumBalanceForRentExemption(size: number): Promise<bigint>;
  /** A recent blockhash and the last block height at which a transaction using it can land. */
  getLatestBlockhash(): Promise<{ blockhash: string; lastValidBlockHeight: number }>;
  /** Current block height (commitment `confirmed`). */
  getBlockHeight(): Promise<number>;
  /** Current slot (commitment `confirmed`). */
  getSlot(): Promise<number>;
  /** Sign (the plan's signers, then `cosign`), send with preflight, and confirm by polling before the deadline. */
  sendAndConfirm(plan: TransactionPlan, options?: SendOptions): Promise<string>;
  /** Poll an already-sent transaction until it is confirmed, fails, its blockhash expires or the deadline passes. */
  confirm(
    sent: SentTransaction,
    options?: { timeoutMs?: number; raw?: Base64EncodedWireTransaction },
  ): Promise<string>;
  /** Status of a signature, searching the node's history. */
  getSignatureStatus(signature: string): Promise<SignatureState>;
  /** Program logs of a processed transaction (empty when unknown). */
  getTransactionLogs(signature: string): Promise<string[]>;
  /** Recent signatures that touched an address, newest first. */
  findSignatures(address: AddressLike, limit?: number): Promise<SignatureInfo[]>;
  /** A mint with its Token-2022 metadata pointer and token metadata, or null when absent or not a mint. */
  getMint(mint: AddressLike): Promise<MintInfo | null>;
  /** Token balance of one token account (0 when it does not exist). */
  getTokenAccountBalance(tokenAccount: AddressLike): Promise<bigint>;
  /** Wallet owner → amount over all token accounts of a mint in both token programs; zero balances omitted. */
  listTokenHolders(mint: AddressLike): Promise<Map<string, bigint>>;
  /** Local chains only: fund an address from the faucet and wait for confirmation. */
  airdrop(address: AddressLike, lamports: bigint): Promise<string>;
}

export interface ChainOptions {
  rpcUrl: string;
  /** Per-request timeout. Default 10 000. */
  requestTimeoutMs?: number;
  /** Interval between status polls. Default 400. */
  pollMs?: number;
  /** Re-broadcast a pending transaction this often (same signature, so it can land only once). Default 2000. */
  resendMs?: number;
}

const key = (address: AddressLike): Address => toAddress(address);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const isLoopback = (url: string) => {
  const host = new URL(url).hostname;
  return host === 'localhost' || host === '[::1]' || host.startsWith('127.');
};

type JsonRpcAnswer = { error?: { code?: unknown; message?: unknown; data?: unknown } };

/**
 * kit's decoding of a preflight failure (-32002) keeps `data` (err, logs) but drops the node's message, and
 * fails on an answer without `data`: keep the message in `data.__serverMessage` for the error's text.
 */
const keepPreflightMessage = (answer: unknown) => {
  const error = (answer as JsonRpcAnswer | null)?.error;
  if (error && Number(error.code) === -32002) {
    const data = typeof error.data === 'object' && error.data !== null ? error.data : {};
    error.data = { ...data, __serverMessage: error.message };
  }
  return answer;
};

/** kit's default HTTP transport with a per-request deadline. */
const transportFor = (url: string, timeoutMs: number): RpcTransport => {
  const inner = createDefaultRpcTransport({ url });
  return async <TResponse>(config: Parameters<RpcTransport>[0]) => {
    const deadline = AbortSignal.timeout(timeoutMs);
    const answer = await inner<TResponse>({
      ...config,
      signal: config.signal ? AbortSignal.any([config.signal, deadline]) : deadline,
    });
    return keepPreflightMessage(answer) as TResponse;
  };
};

/**
 * The plan as a legacy transaction with the given lifetime, signed by the signers its instructions carry
 * (NoopSigners leave their slots empty for a co-signer or the client).
 */
export const signPlan = (
  plan: TransactionPlan,
  lifetime: { blockhash: string; lastValidBlockHeight: number },
): Promise<Transaction> =>
  partiallySignTransactionMessageWithSigners(
    appendTransactionMessageInstructions(
      plan.instructions,
      setTransactionMessageLifetimeUsingBlockhash(
        {
          blockhash: lifetime.blockhash as Blockhash,
          lastValidBlockHeight: BigInt(lifetime.lastValidBlockHeight),
        },
        setTransactionMessageFeePayer(plan.feePayer, createTransactionMessage({ version: 'legacy' })),
      ),
    ),
  );

/** The wire form of a transaction, base64 (unsigned slots are zeros). */
export const wireTransaction = (tx: Transaction): string => getBase64EncodedWireTransaction(tx);

/**
 * Whether `signed` is `unsigned` with every signature present and valid: the same message (a co-signer may not
 * change it), the same signer slots (none dropped or added), each signature verified against the message.
 */
const completesSignatures = async (unsigned: Transaction, signed: Transaction): Promise<boolean> => {
  const bytes = (b: ArrayLike<number>) => Buffer.from(b as Uint8Array);
  if (!bytes(signed.messageBytes).equals(bytes(unsigned.messageBytes))) return false;
  const slots = Object.keys(unsigned.signatures);
  const signedSlots = Object.keys(signed.signatures);
  if (signedSlots.length !== slots.length || !slots.every((slot) => slot in signed.signatures)) return false;
  for (const [signer, signature] of Object.entries(signed.signatures)) {
    if (!signature) return false;
    const publicKey = await getPublicKeyFromAddress(signer as Address);
    if (!(await verifySignature(publicKey, signature, signed.messageBytes))) return false;
  }
  return true;
};

type AccountData = { data: readonly [string, string]; owner: string; lamports: bigint; executable: boolean };

const toAccountInfo = (value: AccountData | null): AccountInfo | null =>
  value
    ? {
        owner: value.owner,
        lamports: value.lamports,
        executable: value.executable,
        data: Buffer.from(value.data[0], 'base64'),
      }
    : null;

/** The chain adapter over one RPC endpoint. */
export const makeChain = (options: ChainOptions): Chain => {
  const pollMs = options.pollMs ?? 400;
  const resendMs = options.resendMs ?? 2000;
  const rpc = createSolanaRpcFromTransport(transportFor(options.rpcUrl, options.requestTimeoutMs ?? 10_000));

  const call = async <T>(action: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      throw toChainError(error, { action });
    }
  };

  const getAccountInfo = async (address: AddressLike) =>
    toAccountInfo(
      (
        await call('getAccountInfo', () =>
          rpc.getAccountInfo(key(address), { commitment: COMMITMENT, encoding: 'base64' }).send(),
        )
      ).value,
    );

  const getBlockHeight = async () =>
    Number(await call('getBlockHeight', () => rpc.getBlockHeight({ commitment: COMMITMENT }).send()));

  const getLatestBlockhash = async () => {
    const { value } = await call('getLatestBlockhash', () =>
      rpc.getLatestBlockhash({ commitment: COMMITMENT }).send(),
    );
    return { blockhash: value.blockhash as string, lastValidBlockHeight: Number(value.lastValidBlockHeight) };
  };

  const getSignatureStatus = async (signature: string): Promise<SignatureState> => {
    const { value } = await call('getSignatureStatuses', () =>
      rpc.getSignatureStatuses([signature as Signature], { searchTransactionHistory: true }).send(),
    );
    const status = value[0];
    if (!status) return { status: 'unknown' };
    if (status.err) return { status: 'failed', slot: Number(status.slot), err: status.err };
    return { status: status.confirmationStatus ?? 'processed', slot: Number(status.slot) };
  };

  const getTransactionLogs = async (signature: string) => {
    const tx = await call('getTransaction', () =>
      rpc
        .getTransaction(signature as Signature, {
          commitment: COMMITMENT,
          encoding: 'json',
          maxSupportedTransactionVersion: 0,
        })
        .send(),
    );
    return [...(tx?.meta?.logMessages ?? [])];
  };

  const failed = async (signature: string, err: unknown) =>
    new ChainError(
      'TRANSACTION_FAILED',
      `Transaction ${signature} failed: ${JSON.stringify(err, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`,
      { signature, logs: await getTransactionLogs(signature).catch(() => []) },
    );

  /** One poll: the signature's settled outcome, or undefined while it is still pending. */
  const settled = async (signature: string, deadline: number): Promise<'confirmed' | undefined> => {
    let state: SignatureState;
    try {
      state = await getSignatureStatus(signature);
    } catch (error) {
      // A flaky status poll is not the transaction failing: keep polling until the deadline.
      if (error instanceof ChainError && error.transient && Date.now() < deadline) return undefined;
      throw error;
    }
    if (state.status === 'failed') throw await failed(signature, state.err);
    return state.status === 'confirmed' || state.status === 'finalized' ? 'confirmed' : undefined;
  };

  /** Whether the blockhash has expired; checks the status once more, since it may have landed meanwhile. */
  const expired = async (sent: SentTransaction): Promise<boolean> => {
    const height = await getBlockHeight().catch(() => undefined);
    if (height === undefined || height <= sent.lastValidBlockHeight) return false;
    const last = await getSignatureStatus(sent.signature);
    if (last.status === 'failed') throw await failed(sent.signature, last.err);
    if (last.status !== 'unknown') return false;
    throw new ChainError(
      'BLOCKHASH_EXPIRED',
      `Transaction ${sent.signature} expired (block height ${height} > ${sent.lastValidBlockHeight}) without landing`,
      { signature: sent.signature },
    );
  };

  const broadcast = (raw: Base64EncodedWireTransaction, preflight: boolean) =>
    rpc
      .sendTransaction(raw, {
        encoding: 'base64',
        skipPreflight: !preflight,
        preflightCommitment: COMMITMENT,
        maxRetries: 0n,
      })
      .send();

  const confirm: Chain['confirm'] = async (sent, { timeoutMs = 30_000, raw } = {}) => {
    const { signature } = sent;
    const deadline = Date.now() + timeoutMs;
    let lastSend = Date.now();
    for (;;) {
      if (await settled(signature, deadline)) return signature;
      if (await expired(sent)) return signature;
      if (Date.now() >= deadline)
        throw new ChainError(
          'CONFIRM_TIMEOUT',
          `Transaction ${signature} not confirmed within ${timeoutMs} ms`,
          {
            signature,
          },
        );
      if (raw && Date.now() - lastSend >= resendMs) {
        lastSend = Date.now();
        await broadcast(raw, false).catch(() => undefined);
      }
      await sleep(Math.min(pollMs, Math.max(0, deadline - Date.now())));
    }
  };

  const sendAndConfirm: Chain['sendAndConfirm'] = async (plan, sendOptions = {}) => {
    const timeoutMs = sendOptions.timeoutMs ?? 30_000;
    const started = Date.now();
    const lifetime = await getLatestBlockhash();
    const { lastValidBlockHeight } = lifetime;
    const partial = await signPlan(plan, lifetime);
    const signed = sendOptions.cosign ? await sendOptions.cosign(partial) : partial;
    if (!(await completesSignatures(partial, signed)))
      throw new ChainError(
        'MISSING_SIGNATURE',
        'Transaction is missing a required signature, one is invalid, or its message was changed',
      );
    const signature = getSignatureFromTransaction(signed);
    const raw = getBase64EncodedWireTransaction(signed);
    await sendOptions.onSent?.({ signature, lastValidBlockHeight });
    try {
      await broadcast(raw, true);
    } catch (error) {
      const chainError = toChainError(error, { signature, action: 'sendTransaction' });
      // A transport failure may still have delivered it: keep confirming (and re-broadcasting) until the deadline.
      if (chainError.code !== 'ALREADY_PROCESSED' && chainError.code !== 'RPC_UNAVAILABLE') throw chainError;
    }
    return confirm(
      { signature, lastValidBlockHeight },
      { timeoutMs: timeoutMs - (Date.now() - started), raw },
    );
  };

  const getMint: Chain['getMint'] = async (mint) => {
    const address = key(mint);
    const info = await getAccountInfo(address);
    if (!info) return null;
    const isToken2022 = info.owner === TOKEN_2022_PROGRAM_ADDRESS;
    if (!isToken2022 && info.owner !== TOKEN_PROGRAM_ADDRESS) return null;
    const parsed = decodeMint(info.data, isToken2022);
    if (!parsed) return null;
    return { address, programId: info.owner, isToken2022, ...parsed };
  };

  /**
   * getProgramAccounts without kit's response transformers: over large holder sets, per-account parsing of
   * u64s to bigints dominates; this reads only the owner and amount bytes of each account.
   */
  const rawCall = async <T>(method: string, params: unknown[]): Promise<T> => {
    let response: Response;
    try {
      response = await fetch(options.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        signal: AbortSignal.timeout(options.requestTimeoutMs ?? 10_000),
      });
    } catch (error) {
      throw toChainError(error, { action: method });
    }
    if (!response.ok) throw fromRpcAnswer(method, { status: response.status });
    const body = (await response.json()) as { result?: T; error?: { code: number; message: string } };
    if (body.error) throw fromRpcAnswer(method, { error: body.error });
    return body.result as T;
  };

  const listTokenHolders: Chain['listTokenHolders'] = async (mint) => {
    const mintKey = key(mint);
    // Only owner (32..64) and amount (64..72) are read: dataSlice keeps responses small for large holder sets.
    const query = (programId: string, extra: Array<{ dataSize: number }>) =>
      rawCall<Array<{ account: { data: [string, string] } }>>('getProgramAccounts', [
        programId,
        {
          commitment: COMMITMENT,
          encoding: 'base64',
          dataSlice: { offset: 32, length: 40 },
          filters: [...extra, { memcmp: { offset: 0, bytes: mintKey } }],
        },
      ]);
    const [classic, token2022] = await Promise.all([
      query(TOKEN_PROGRAM_ADDRESS, [{ dataSize: 165 }]),
      query(TOKEN_2022_PROGRAM_ADDRESS, []),
    ]);
    const holders = new Map<string, bigint>();
    for (const { account } of [...classic, ...token2022]) {
      const data = Buffer.from(account.data[0], 'base64');
      if (data.length < 40) continue;
      const amount = data.readBigUInt64LE(32);
      if (amount === 0n) continue;
      const owner = bs58.encode(data.subarray(0, 32));
      holders.set(owner, (holders.get(owner) ?? 0n) + amount);
    }
    return holders;
  };

  return {
    rpcUrl: options.rpcUrl,
    getBalance: async (address) =>
      (await call('getBalance', () => rpc.getBalance(key(address), { commitment: COMMITMENT }).send())).value,
    getAccountInfo,
    getMinimumBalanceForRentExemption: (size) =>
      call('getMinimumBalanceForRentExemption', () =>
        rpc.getMinimumBalanceForRentExemption(BigInt(size), { commitment: COMMITMENT }).send(),
      ),
    getLatestBlockhash,
    getBlockHeight,
    getSlot: async () => Number(await call('getSlot', () => rpc.getSlot({ commitment: COMMITMENT }).send())),
    sendAndConfirm,
    confirm,
    getSignatureStatus,
    getTransactionLogs,
    findSignatures: async (address, limit = 20) => {
      const list = await call('getSignaturesForAddress', () =>
        rpc.getSignaturesForAddress(key(address), { limit, commitment: COMMITMENT }).send(),
      );
      return list.map((s) => ({
        signature: s.signature,
        slot: Number(s.slot),
        err: s.err,
        memo: s.memo,
        blockTime: s.blockTime === null ? null : Number(s.blockTime),
      }));
    },
    getMint,
    getTokenAccountBalance: async (tokenAccount) => {
      const info = await getAccountInfo(tokenAccount);
      if (!info || info.data.length < 72) return 0n;
      return info.data.readBigUInt64LE(64);
    },
    listTokenHolders,
    airdrop: async (address, lamports) => {
      if (!isLoopback(options.rpcUrl))
        throw new ChainError('NOT_LOCAL', 'Airdrops are only available on the local chain');
      const { lastValidBlockHeight } = await getLatestBlockhash();
      const signature = await call('requestAirdrop', () =>
        rpc.requestAirdrop(key(address), toLamports(lamports), { commitment: COMMITMENT }).send(),
      );
      return confirm({ signature, lastValidBlockHeight }, { timeoutMs: 30_000 });
    },
  };
};
