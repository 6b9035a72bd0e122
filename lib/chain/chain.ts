// The one adapter all chain work goes through (DESIGN §5): @solana/web3.js over an RPC URL, commitment
// `confirmed`, confirmations by polling getSignatureStatuses against a deadline (no WebSockets: Lambda), every
// failure classified into a ChainError.
import {
  getMetadataPointerState,
  getTokenMetadata,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  unpackMint,
} from '@solana/spl-token';
import {
  type AccountInfo,
  type Commitment,
  Connection,
  PublicKey,
  type Signer,
  SolanaJSONRPCError,
  type Transaction,
} from '@solana/web3.js';
import bs58 from 'bs58';
import { ChainError, TRANSIENT_MARK, toChainError } from './errors.js';

const COMMITMENT: Commitment = 'confirmed';

export type AddressLike = PublicKey | string;

/** A sent transaction: enough to resume confirming it, or to know when it can no longer land. */
export interface SentTransaction {
  signature: string;
  lastValidBlockHeight: number;
}

export interface SendOptions {
  /** Overall deadline for sending and confirming. Default 30 000. */
  timeoutMs?: number;
  /** Fee payer when it is not the first signer (e.g. a wallet that signs through `cosign`). */
  feePayer?: PublicKey;
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
  readonly connection: Connection;
  /** Lamports held by an address (0 when the account does not exist). */
  getBalance(address: AddressLike): Promise<bigint>;
  /** Raw account, or null when it does not exist. */
  getAccountInfo(address: AddressLike): Promise<AccountInfo<Buffer> | null>;
  /** Rent-exempt minimum for an account of `size` bytes. */
  getMinimumBalanceForRentExemption(size: number): Promise<bigint>;
  /** Sign (local signers, then `cosign`), send with preflight, and confirm by polling before the deadline. */
  sendAndConfirm(tx: Transaction, signers: Signer[], options?: SendOptions): Promise<string>;
  /** Poll an already-sent transaction until it is confirmed, fails, its blockhash expires or the deadline passes. */
  confirm(sent: SentTransaction, options?: { timeoutMs?: number; raw?: Buffer }): Promise<string>;
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

const key = (address: AddressLike) => (typeof address === 'string' ? new PublicKey(address) : address);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A fetch with a per-request deadline whose transport failures, 429s and 5xxs are marked transient. */
const transportFetch =
  (timeoutMs: number) =>
  async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]): Promise<Response> => {
    let response: Response;
    try {
      response = await fetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      const reason =
        (error as Error).name === 'TimeoutError'
          ? `timed out after ${timeoutMs} ms`
          : (error as Error).message;
      throw new Error(`${TRANSIENT_MARK} RPC request failed: ${reason}`, { cause: error });
    }
    if (response.status === 429 || response.status >= 500)
      throw new Error(`${TRANSIENT_MARK} RPC answered HTTP ${response.status}`);
    return response;
  };

const isLoopback = (url: string) => {
  const host = new URL(url).hostname;
  return host === 'localhost' || host === '[::1]' || host.startsWith('127.');
};

/** The chain adapter over one RPC endpoint. */
export const makeChain = (options: ChainOptions): Chain => {
  const pollMs = options.pollMs ?? 400;
  const resendMs = options.resendMs ?? 2000;
  const connection = new Connection(options.rpcUrl, {
    commitment: COMMITMENT,
    disableRetryOnRateLimit: true,
    fetch: transportFetch(options.requestTimeoutMs ?? 10_000) as never,
  });

  const call = async <T>(action: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      throw toChainError(error, { action });
    }
  };

  const getSignatureStatus = async (signature: string): Promise<SignatureState> => {
    const { value } = await call('getSignatureStatuses', () =>
      connection.getSignatureStatuses([signature], { searchTransactionHistory: true }),
    );
    const status = value[0];
    if (!status) return { status: 'unknown' };
    if (status.err) return { status: 'failed', slot: status.slot, err: status.err };
    return { status: status.confirmationStatus ?? 'processed', slot: status.slot };
  };

  const getTransactionLogs = async (signature: string) => {
    const tx = await call('getTransaction', () =>
      connection.getTransaction(signature, { commitment: COMMITMENT, maxSupportedTransactionVersion: 0 }),
    );
    return tx?.meta?.logMessages ?? [];
  };

  const failed = async (signature: string, err: unknown) =>
    new ChainError('TRANSACTION_FAILED', `Transaction ${signature} failed: ${JSON.stringify(err)}`, {
      signature,
      logs: await getTransactionLogs(signature).catch(() => []),
    });

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
    const height = await connection.getBlockHeight(COMMITMENT).catch(() => undefined);
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
        await connection
          .sendRawTransaction(raw, { skipPreflight: true, maxRetries: 0 })
          .catch(() => undefined);
      }
      await sleep(Math.min(pollMs, Math.max(0, deadline - Date.now())));
    }
  };

  const sendAndConfirm: Chain['sendAndConfirm'] = async (tx, signers, sendOptions = {}) => {
    const timeoutMs = sendOptions.timeoutMs ?? 30_000;
    const started = Date.now();
    const { blockhash, lastValidBlockHeight } = await call('getLatestBlockhash', () =>
      connection.getLatestBlockhash(COMMITMENT),
    );
    tx.recentBlockhash = blockhash;
    tx.lastValidBlockHeight = lastValidBlockHeight;
    tx.feePayer = sendOptions.feePayer ?? tx.feePayer ?? signers[0]?.publicKey;
    if (signers.length > 0) tx.partialSign(...signers);
    const signed = sendOptions.cosign ? await sendOptions.cosign(tx) : tx;
    if (!signed.signature || !signed.verifySignatures(true))
      throw new ChainError(
        'MISSING_SIGNATURE',
        'Transaction is missing a required signature or one is invalid',
      );
    const signature = bs58.encode(signed.signature);
    const raw = signed.serialize();
    await sendOptions.onSent?.({ signature, lastValidBlockHeight });
    try {
      await connection.sendRawTransaction(raw, {
        skipPreflight: false,
        preflightCommitment: COMMITMENT,
        maxRetries: 0,
      });
    } catch (error) {
      const chainError = toChainError(error, { signature, action: 'sendTransaction' });
      const alreadyProcessed = /already been processed|AlreadyProcessed/.test(chainError.message);
      // A transport failure may still have delivered it: keep confirming (and re-broadcasting) until the deadline.
      if (!alreadyProcessed && !(chainError.code === 'RPC_UNAVAILABLE')) throw chainError;
    }
    return confirm(
      { signature, lastValidBlockHeight },
      { timeoutMs: timeoutMs - (Date.now() - started), raw },
    );
  };

  const getMint: Chain['getMint'] = async (mint) => {
    const address = key(mint);
    const info = await call('getAccountInfo', () => connection.getAccountInfo(address, COMMITMENT));
    if (!info) return null;
    const programId = info.owner;
    const isToken2022 = programId.equals(TOKEN_2022_PROGRAM_ID);
    if (!isToken2022 && !programId.equals(TOKEN_PROGRAM_ID)) return null;
    let parsed: ReturnType<typeof unpackMint>;
    try {
      parsed = unpackMint(address, info, programId);
    } catch {
      return null;
    }
    const pointer = isToken2022 ? getMetadataPointerState(parsed) : null;
    const metadata = isToken2022
      ? await call('getTokenMetadata', () =>
          getTokenMetadata(connection, address, COMMITMENT, TOKEN_2022_PROGRAM_ID),
        )
      : null;
    return {
      address: address.toBase58(),
      programId: programId.toBase58(),
      isToken2022,
      decimals: parsed.decimals,
      supply: parsed.supply,
      mintAuthority: parsed.mintAuthority?.toBase58() ?? null,
      freezeAuthority: parsed.freezeAuthority?.toBase58() ?? null,
      metadataPointer: pointer
        ? {
            authority: pointer.authority?.toBase58() ?? null,
            metadataAddress: pointer.metadataAddress?.toBase58() ?? null,
          }
        : null,
      metadata: metadata
        ? {
            name: metadata.name,
            symbol: metadata.symbol,
            uri: metadata.uri,
            updateAuthority: metadata.updateAuthority?.toBase58() ?? null,
            additionalMetadata: metadata.additionalMetadata.map(([k, v]) => [k, v] as [string, string]),
          }
        : null,
    };
  };

  const fetchRpc = transportFetch(options.requestTimeoutMs ?? 10_000);

  /**
   * A JSON-RPC call without web3.js's response validation: for getProgramAccounts over large holder sets,
   * web3.js spends ~80 µs per account building PublicKeys and checking shapes; this reads only what is used.
   */
  const rawCall = async <T>(method: string, params: unknown[]): Promise<T> => {
    const response = await fetchRpc(options.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    if (!response.ok) throw new ChainError('RPC_ERROR', `${method}: RPC answered HTTP ${response.status}`);
    const body = (await response.json()) as { result?: T; error?: { code: number; message: string } };
    if (body.error) throw new SolanaJSONRPCError(body.error, `${method} failed`);
    return body.result as T;
  };

  const listTokenHolders: Chain['listTokenHolders'] = async (mint) => {
    const mintKey = key(mint).toBase58();
    // Only owner (32..64) and amount (64..72) are read: dataSlice keeps responses small for large holder sets.
    const query = (programId: PublicKey, extra: Array<{ dataSize: number }>) =>
      call('getProgramAccounts', () =>
        rawCall<Array<{ account: { data: [string, string] } }>>('getProgramAccounts', [
          programId.toBase58(),
          {
            commitment: COMMITMENT,
            encoding: 'base64',
            dataSlice: { offset: 32, length: 40 },
            filters: [...extra, { memcmp: { offset: 0, bytes: mintKey } }],
          },
        ]),
      );
    const [classic, token2022] = await Promise.all([
      query(TOKEN_PROGRAM_ID, [{ dataSize: 165 }]),
      query(TOKEN_2022_PROGRAM_ID, []),
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
    connection,
    getBalance: async (address) =>
      BigInt(await call('getBalance', () => connection.getBalance(key(address), COMMITMENT))),
    getAccountInfo: (address) =>
      call('getAccountInfo', () => connection.getAccountInfo(key(address), COMMITMENT)),
    getMinimumBalanceForRentExemption: async (size) =>
      BigInt(
        await call('getMinimumBalanceForRentExemption', () =>
          connection.getMinimumBalanceForRentExemption(size),
        ),
      ),
    sendAndConfirm,
    confirm,
    getSignatureStatus,
    getTransactionLogs,
    findSignatures: async (address, limit = 20) => {
      const list = await call('getSignaturesForAddress', () =>
        connection.getSignaturesForAddress(key(address), { limit }, COMMITMENT),
      );
      return list.map((s) => ({
        signature: s.signature,
        slot: s.slot,
        err: s.err,
        memo: s.memo,
        blockTime: s.blockTime ?? null,
      }));
    },
    getMint,
    getTokenAccountBalance: async (tokenAccount) => {
      const info = await call('getAccountInfo', () =>
        connection.getAccountInfo(key(tokenAccount), COMMITMENT),
      );
      if (!info || info.data.length < 72) return 0n;
      return info.data.readBigUInt64LE(64);
    },
    listTokenHolders,
    airdrop: async (address, lamports) => {
      if (!isLoopback(options.rpcUrl))
        throw new ChainError('NOT_LOCAL', 'Airdrops are only available on the local chain');
      const { lastValidBlockHeight } = await call('getLatestBlockhash', () =>
        connection.getLatestBlockhash(COMMITMENT),
      );
      const signature = await call('requestAirdrop', () =>
        connection.requestAirdrop(key(address), Number(lamports)),
      );
      return confirm({ signature, lastValidBlockHeight }, { timeoutMs: 30_000 });
    },
  };
};
