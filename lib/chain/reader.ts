// Reading the chain: @solana/kit's RPC client over an RPC URL, commitment `confirmed`, every failure
// classified into a ChainError. The functions that only look at the chain (the launch's balance check, launch
// completion, the pool balance, the snapshot builder, claims) take this reader; signing, sending and
// confirming live in ./chain.ts, whose `makeChain` extends it. Keeping them apart keeps kit's transaction,
// signer and message code out of the reading functions' bundles (bench/cold-start.ts).
import {
  type Address,
  createDefaultRpcTransport,
  createSolanaRpcFromTransport,
  type RpcTransport,
  type Signature,
  address as toAddress,
} from '@solana/kit';
import { toChainError } from './errors.js';
import {
  boundedFetchCall,
  type HoldersOptions,
  type ListHoldersOptions,
  readTokenHolders,
  type TokenHolders,
} from './holders.js';
import {
  backoffMs,
  type RateLimitRetry,
  type RpcBudget,
  type RpcLimiter,
  retryAfterMs,
  rpcLimiter,
  rpcTimeoutMs,
} from './rpc-budget.js';
import {
  decodeMint,
  type MintInfo,
  TOKEN_2022_PROGRAM_ADDRESS,
  TOKEN_PROGRAM_ADDRESS,
  type TokenMetadataInfo,
} from './token.js';

export type { HoldersOptions, ListHoldersOptions, MintInfo, TokenHolders, TokenMetadataInfo };

export const COMMITMENT = 'confirmed' as const;

export type AddressLike = Address | string;

/** An account as read from chain. */
export interface AccountInfo {
  owner: string;
  lamports: bigint;
  executable: boolean;
  data: Buffer;
}

export type SignatureState =
  | { status: 'unknown' }
  | { status: 'processed' | 'confirmed' | 'finalized'; slot: number }
  | { status: 'failed'; slot: number; err: unknown };

/** What the platform checks of a landed transaction it did not send itself. */
export interface LandedTransaction {
  signers: string[];
  /** Its signatures, base58, in its signers' order (the first is the transaction's own). */
  signatures: string[];
  /** Token balance changes per (owner, mint), post − pre, in base units. */
  tokenChanges: Array<{ owner: string; mint: string; delta: bigint }>;
  blockTime: number | null;
}

export interface SignatureInfo {
  signature: string;
  slot: number;
  err: unknown;
  memo: string | null;
  blockTime: number | null;
}

/** Everything the product reads from the chain. */
export interface ChainReader {
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
  /** Status of a signature, searching the node's history. */
  getSignatureStatus(signature: string): Promise<SignatureState>;
  /** Program logs of a processed transaction (empty when unknown). */
  getTransactionLogs(signature: string): Promise<string[]>;
  /** A transaction that landed and succeeded: who signed it and how token balances moved; null when unknown or failed. */
  getLandedTransaction(signature: string): Promise<LandedTransaction | null>;
  /** Signatures that touched an address, newest first (older than `before` when given). */
  findSignatures(address: AddressLike, limit?: number, before?: string): Promise<SignatureInfo[]>;
  /** A mint with its Token-2022 metadata pointer and token metadata, or null when absent or not a mint. */
  getMint(mint: AddressLike): Promise<MintInfo | null>;
  /** Token balance of one token account (0 when it does not exist). */
  getTokenAccountBalance(tokenAccount: AddressLike): Promise<bigint>;
  /**
   * Every wallet holding a mint, balances summed over its token accounts, zero balances omitted: read in pages
   * (holders.ts), with the slot range the pages were read at.
   */
  listTokenHolders(mint: AddressLike, options?: ListHoldersOptions): Promise<TokenHolders>;
}

export interface ChainOptions {
  rpcUrl: string;
  /** Per-request timeout. Default 10 000. */
  requestTimeoutMs?: number;
  /** Interval between status polls. Default 1 000 (a public RPC's budget is a few requests a second). */
  pollMs?: number;
  /** Cap of the compute-unit price the platform bids, micro-lamports per unit. Default 1 000 000. */
  priorityFeeMaxMicroLamports?: number;
  /** Re-broadcast a pending transaction this often (same signature, so it can land only once). Default 2000. */
  resendMs?: number;
  /** How holders are read: standard RPC or the provider's paginated API, and the page size. */
  holders?: HoldersOptions;
  /** Requests per second per method family, shared by every adapter of this URL in the container. */
  budget?: RpcBudget;
  /** How a 429 from the provider is retried. */
  rateLimitRetry?: RateLimitRetry;
  /** Price bids: a percentile of recent fees (default), or the provider's fee-estimate API. */
  fees?: FeeOptions;
}

/** Where the priority fee bid comes from. */
export interface FeeOptions {
  /** `recent`: a percentile of getRecentPrioritizationFees; `helius`: the provider's getPriorityFeeEstimate. */
  source?: 'recent' | 'helius';
  /** The percentile bid of recent per-slot fees. Default PRIORITY_PERCENTILE. */
  percentile?: number;
}

export const toKey = (address: AddressLike): Address => toAddress(address);

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

type Payload = { method?: unknown };

/** The JSON-RPC method of a request (or of a batch's first). */
const methodOf = (payload: unknown): string => {
  const one = (Array.isArray(payload) ? payload[0] : payload) as Payload | null;
  return typeof one?.method === 'string' ? one.method : '';
};

/** A 429 of kit's HTTP transport: the provider's Retry-After (ms, 0 when absent); undefined for anything else. */
const rateLimited = (error: unknown): number | undefined => {
  const context = (error as { context?: { statusCode?: unknown; headers?: unknown } } | null)?.context;
  if (context?.statusCode !== 429) return undefined;
  const headers = context.headers as { get?: (name: string) => string | null } | undefined;
  return retryAfterMs(headers?.get?.('retry-after')) ?? 0;
};

/**
 * kit's default HTTP transport, with the family's budget taken before each request, a per-request timeout
 * shortened to what the invocation has left, and a 429 retried after the provider's wait while it fits.
 */
const transportFor = (
  url: string,
  timeoutMs: number,
  limiter: RpcLimiter,
  retry: RateLimitRetry = {},
): RpcTransport => {
  const inner = createDefaultRpcTransport({ url });
  const attempts = Math.max(1, retry.attempts ?? 4);
  return async <TResponse>(config: Parameters<RpcTransport>[0]) => {
    const method = methodOf(config.payload);
    for (let attempt = 1; ; attempt++) {
      await limiter.take(method);
      const deadline = AbortSignal.timeout(rpcTimeoutMs(timeoutMs));
      try {
        const answer = await inner<TResponse>({
          ...config,
          signal: config.signal ? AbortSignal.any([config.signal, deadline]) : deadline,
        });
        return keepPreflightMessage(answer) as TResponse;
      } catch (error) {
        const asked = rateLimited(error);
        if (asked === undefined) throw error;
        // Every call of the family pauses for the provider's wait (or a backoff); the next turn waits for it, or
        // answers 503 with it at once when it does not fit the deadline (limiter.take).
        limiter.pause(method, backoffMs(attempt, retry.baseMs ?? 500, asked || undefined));
        if (attempt >= attempts) throw error;
      }
    }
  };
};

/** The HTTP transport of one endpoint, with its budget (also for provider methods kit's client does not type). */
export const rpcTransport = (options: ChainOptions): RpcTransport =>
  transportFor(
    options.rpcUrl,
    options.requestTimeoutMs ?? 10_000,
    rpcLimiter(options.rpcUrl, options.budget),
    options.rateLimitRetry,
  );

/** kit's Solana RPC client over one endpoint, with its budget. */
export const solanaRpc = (options: ChainOptions, transport: RpcTransport = rpcTransport(options)) =>
  createSolanaRpcFromTransport(transport);

export type SolanaRpc = ReturnType<typeof solanaRpc>;

/** One RPC call with its failure classified (ChainError, transient or not). */
export const rpcCall = async <T>(action: string, fn: () => Promise<T>): Promise<T> => {
  try {
    return await fn();
  } catch (error) {
    throw toChainError(error, { action });
  }
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

/** The chain reader over one RPC endpoint (`rpc`: share the client of a full chain adapter). */
export const makeChainReader = (options: ChainOptions, rpc: SolanaRpc = solanaRpc(options)): ChainReader => {
  const getAccountInfo = async (address: AddressLike) =>
    toAccountInfo(
      (
        await rpcCall('getAccountInfo', () =>
          rpc.getAccountInfo(toKey(address), { commitment: COMMITMENT, encoding: 'base64' }).send(),
        )
      ).value,
    );

  const getSignatureStatus = async (signature: string): Promise<SignatureState> => {
    const { value } = await rpcCall('getSignatureStatuses', () =>
      rpc.getSignatureStatuses([signature as Signature], { searchTransactionHistory: true }).send(),
    );
    const status = value[0];
    if (!status) return { status: 'unknown' };
    if (status.err) return { status: 'failed', slot: Number(status.slot), err: status.err };
    return { status: status.confirmationStatus ?? 'processed', slot: Number(status.slot) };
  };

  const getTransaction = (signature: string) =>
    rpcCall('getTransaction', () =>
      rpc
        .getTransaction(signature as Signature, {
          commitment: COMMITMENT,
          encoding: 'json',
          maxSupportedTransactionVersion: 0,
        })
        .send(),
    );

  const getMint: ChainReader['getMint'] = async (mint) => {
    const address = toKey(mint);
    const info = await getAccountInfo(address);
    if (!info) return null;
    const isToken2022 = info.owner === TOKEN_2022_PROGRAM_ADDRESS;
    if (!isToken2022 && info.owner !== TOKEN_PROGRAM_ADDRESS) return null;
    const parsed = decodeMint(info.data, isToken2022);
    if (!parsed) return null;
    return { address, programId: info.owner, isToken2022, ...parsed };
  };

  const holdersCall = boundedFetchCall(
    options.rpcUrl,
    options.requestTimeoutMs ?? 10_000,
    rpcLimiter(options.rpcUrl, options.budget),
  );
  const listTokenHolders: ChainReader['listTokenHolders'] = (mint, listOptions = {}) =>
    readTokenHolders(holdersCall, toKey(mint), { ...options.holders, ...listOptions });

  return {
    rpcUrl: options.rpcUrl,
    getBalance: async (address) =>
      (await rpcCall('getBalance', () => rpc.getBalance(toKey(address), { commitment: COMMITMENT }).send()))
        .value,
    getAccountInfo,
    getMinimumBalanceForRentExemption: (size) =>
      rpcCall('getMinimumBalanceForRentExemption', () =>
        rpc.getMinimumBalanceForRentExemption(BigInt(size), { commitment: COMMITMENT }).send(),
      ),
    getLatestBlockhash: async () => {
      const { value } = await rpcCall('getLatestBlockhash', () =>
        rpc.getLatestBlockhash({ commitment: COMMITMENT }).send(),
      );
      return {
        blockhash: value.blockhash as string,
        lastValidBlockHeight: Number(value.lastValidBlockHeight),
      };
    },
    getBlockHeight: async () =>
      Number(await rpcCall('getBlockHeight', () => rpc.getBlockHeight({ commitment: COMMITMENT }).send())),
    getSlot: async () =>
      Number(await rpcCall('getSlot', () => rpc.getSlot({ commitment: COMMITMENT }).send())),
    getSignatureStatus,
    getTransactionLogs: async (signature) => [
      ...((await getTransaction(signature))?.meta?.logMessages ?? []),
    ],
    getLandedTransaction: async (signature) => {
      const tx = await getTransaction(signature);
      if (!tx?.meta || tx.meta.err) return null;
      const { accountKeys, header } = tx.transaction.message;
      const changes = new Map<string, { owner: string; mint: string; delta: bigint }>();
      const add = (balances: typeof tx.meta.preTokenBalances, sign: 1n | -1n) => {
        for (const b of balances ?? []) {
          if (!b.owner) continue;
          const key = `${b.owner}:${b.mint}`;
          const entry = changes.get(key) ?? { owner: String(b.owner), mint: String(b.mint), delta: 0n };
          entry.delta += sign * BigInt(b.uiTokenAmount.amount);
          changes.set(key, entry);
        }
      };
      add(tx.meta.preTokenBalances, -1n);
      add(tx.meta.postTokenBalances, 1n);
      return {
        signers: accountKeys.slice(0, header.numRequiredSignatures).map(String),
        signatures: tx.transaction.signatures.map(String),
        tokenChanges: [...changes.values()],
        blockTime: tx.blockTime === null ? null : Number(tx.blockTime),
      };
    },
    findSignatures: async (address, limit = 20, before) => {
      const list = await rpcCall('getSignaturesForAddress', () =>
        rpc
          .getSignaturesForAddress(toKey(address), {
            limit,
            commitment: COMMITMENT,
            ...(before ? { before: before as Signature } : {}),
          })
          .send(),
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
  };
};
