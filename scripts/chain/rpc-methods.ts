// The Solana JSON-RPC methods the local chain serves (the subset @solana/web3.js 1.x and @solana/spl-token use,
// listed in docs/local-chain.md), answered from the Ledger in the shapes a validator returns.
import { VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import {
  type AccountEncoding,
  parsedExtensions,
  parseEncoding,
  RpcError,
  readMint,
  readTokenAccount,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAMS,
  uiTokenAmount,
} from './codec.js';
import type { AccountState, Ledger, TxRecord } from './ledger.js';

type Params = unknown[];
type Config = Record<string, unknown>;
type Method = (ledger: Ledger, params: Params) => unknown;

const API_VERSION = '2.2.0';
/** The provider's fee-estimate levels and the percentiles they stand for. */
const PRIORITY_LEVELS: Record<string, number> = {
  Min: 0,
  Low: 25,
  Medium: 50,
  High: 75,
  VeryHigh: 95,
  UnsafeMax: 100,
};
const SLOTS_PER_EPOCH = 432_000;

const invalid = (message: string) => new RpcError(-32602, `Invalid params: ${message}`);

const str = (params: Params, i: number, name: string): string => {
  const value = params[i];
  if (typeof value !== 'string') throw invalid(`${name} must be a string`);
  return value;
};

const address = (params: Params, i: number, name = 'address'): string => {
  const value = str(params, i, name);
  let bytes: Uint8Array;
  try {
    bytes = bs58.decode(value);
  } catch {
    throw invalid(`${name} is not base58`);
  }
  if (bytes.length !== 32) throw invalid(`${name} is not a 32-byte public key`);
  return value;
};

const config = (params: Params, i: number): Config => {
  const value = params[i];
  if (value === undefined || value === null) return {};
  if (typeof value === 'string') return { commitment: value, encoding: value };
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid('configuration must be an object');
  return value as Config;
};

const context = (ledger: Ledger) => ({ slot: ledger.slot, apiVersion: API_VERSION });
const withContext = (ledger: Ledger, value: unknown) => ({ context: context(ledger), value });

interface DataSlice {
  offset: number;
  length: number;
}

const decimalsOf = (ledger: Ledger, mint: string): number => {
  const account = ledger.getAccount(mint);
  return account ? (readMint(account.data)?.decimals ?? 0) : 0;
};

const parsedTokenData = (ledger: Ledger, account: AccountState) => {
  const program = account.owner === TOKEN_2022_PROGRAM ? 'spl-token-2022' : 'spl-token';
  const extensions =
    account.owner === TOKEN_2022_PROGRAM ? { extensions: parsedExtensions(account.data) } : {};
  const token = readTokenAccount(account.data);
  if (token) {
    const state = ['uninitialized', 'initialized', 'frozen'][token.state] ?? 'uninitialized';
    return {
      program,
      space: account.data.length,
      parsed: {
        type: 'account',
        info: {
          isNative: token.isNative,
          mint: token.mint,
          owner: token.owner,
          state,
          tokenAmount: uiTokenAmount(token.amount, decimalsOf(ledger, token.mint)),
          ...extensions,
        },
      },
    };
  }
  const mint = readMint(account.data);
  if (!mint) return null;
  return {
    program,
    space: account.data.length,
    parsed: {
      type: 'mint',
      info: {
        decimals: mint.decimals,
        freezeAuthority: mint.freezeAuthority,
        isInitialized: mint.isInitialized,
        mintAuthority: mint.mintAuthority,
        supply: mint.supply.toString(),
        ...extensions,
      },
    },
  };
};

const encodeAccount = (
  ledger: Ledger,
  account: AccountState,
  encoding: AccountEncoding,
  slice?: DataSlice,
) => {
  const data = slice ? account.data.subarray(slice.offset, slice.offset + slice.length) : account.data;
  const parsed =
    encoding === 'jsonParsed' && !slice && TOKEN_PROGRAMS.has(account.owner)
      ? parsedTokenData(ledger, account)
      : null;
  return {
    data:
      parsed ??
      (encoding === 'base58'
        ? [bs58.encode(data), 'base58']
        : [Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64'), 'base64']),
    executable: account.executable,
    lamports: Number(account.lamports),
    owner: account.owner,
    rentEpoch: 0,
    space: account.data.length,
  };
};

const dataSlice = (cfg: Config): DataSlice | undefined => {
  const slice = cfg.dataSlice as { offset?: unknown; length?: unknown } | undefined;
  if (!slice) return undefined;
  if (typeof slice.offset !== 'number' || typeof slice.length !== 'number') throw invalid('dataSlice');
  return { offset: slice.offset, length: slice.length };
};

interface Memcmp {
  offset: number;
  bytes: Buffer;
}

const parseFilters = (cfg: Config): { memcmp: Memcmp[]; dataSize?: number } => {
  const out: { memcmp: Memcmp[]; dataSize?: number } = { memcmp: [] };
  const filters = cfg.filters;
  if (filters === undefined) return out;
  if (!Array.isArray(filters)) throw invalid('filters must be an array');
  for (const filter of filters as Array<Record<string, unknown>>) {
    if (typeof filter.dataSize === 'number') {
      out.dataSize = filter.dataSize;
    } else if (filter.memcmp && typeof filter.memcmp === 'object') {
      const m = filter.memcmp as { offset?: unknown; bytes?: unknown; encoding?: unknown };
      if (typeof m.offset !== 'number' || typeof m.bytes !== 'string') throw invalid('memcmp');
      const bytes =
        m.encoding === 'base64' ? Buffer.from(m.bytes, 'base64') : Buffer.from(bs58.decode(m.bytes));
      out.memcmp.push({ offset: m.offset, bytes });
    } else if (filter.tokenAccountState === undefined) {
      throw invalid('unsupported filter');
    }
  }
  return out;
};

const matches = (account: AccountState, filters: ReturnType<typeof parseFilters>) => {
  if (filters.dataSize !== undefined && account.data.length !== filters.dataSize) return false;
  return filters.memcmp.every(({ offset, bytes }) =>
    Buffer.from(account.data.buffer, account.data.byteOffset, account.data.byteLength)
      .subarray(offset, offset + bytes.length)
      .equals(bytes),
  );
};

/** Candidate addresses for a program-account query: an index when the filters name a mint or an owner. */
const candidatesOf = (
  ledger: Ledger,
  program: string,
  filters: ReturnType<typeof parseFilters>,
): Iterable<string> => {
  if (!TOKEN_PROGRAMS.has(program)) return ledger.programAccountAddresses(program);
  const mint = filters.memcmp.find((m) => m.offset === 0 && m.bytes.length === 32);
  const owner = filters.memcmp.find((m) => m.offset === 32 && m.bytes.length > 0);
  if (owner?.bytes.length === 32) return ledger.index.tokenAccountsOfOwner(bs58.encode(owner.bytes));
  if (mint && owner)
    return ledger.index.tokenAccountsOfMintByOwnerByte(bs58.encode(mint.bytes), owner.bytes[0] as number);
  if (mint) return ledger.index.tokenAccountsOfMint(bs58.encode(mint.bytes));
  return ledger.programAccountAddresses(program);
};

/** A node answers only from a state at least this recent (-32016 otherwise, as a validator does). */
const checkMinContextSlot = (ledger: Ledger, cfg: Config) => {
  const min = cfg.minContextSlot;
  if (min === undefined || min === null) return;
  if (typeof min !== 'number' || !Number.isSafeInteger(min) || min < 0) throw invalid('minContextSlot');
  if (ledger.slot < min) throw new RpcError(-32016, 'Minimum context slot has not been reached');
};

const matching = (
  ledger: Ledger,
  program: string,
  pubkeys: Iterable<string>,
  filters: ReturnType<typeof parseFilters>,
  encoding: AccountEncoding,
  slice: DataSlice | undefined,
) => {
  const value: unknown[] = [];
  for (const pubkey of pubkeys) {
    const account = ledger.getAccount(pubkey);
    if (!account || account.owner !== program || !matches(account, filters)) continue;
    value.push({ pubkey, account: encodeAccount(ledger, account, encoding, slice) });
  }
  return value;
};

const programAccounts: Method = (ledger, params) => {
  const program = address(params, 0, 'program id');
  const cfg = config(params, 1);
  const encoding = parseEncoding(cfg.encoding, 'base58');
  const filters = parseFilters(cfg);
  const slice = dataSlice(cfg);
  checkMinContextSlot(ledger, cfg);
  const value = matching(ledger, program, candidatesOf(ledger, program, filters), filters, encoding, slice);
  return cfg.withContext ? withContext(ledger, value) : value;
};

// getProgramAccountsV2, the paginated variant providers serve (Helius, Alchemy): `limit` 1–10 000 (default 1000)
// addresses a page in a fixed order, filtered after paging (a page may hold fewer than `limit` even mid-way),
// `paginationKey` the last address of the previous page, null after the last page. Unknown fields are refused;
// changedSinceSlot is refused too (the local chain keeps no per-account write slot).
const V2_FIELDS = new Set([
  'commitment',
  'encoding',
  'filters',
  'dataSlice',
  'withContext',
  'minContextSlot',
  'limit',
  'paginationKey',
  'changedSinceSlot',
]);
const sortedCache = new WeakMap<object, { version: number; sorted: string[] }>();

/** The candidates in page order, kept while the ledger is unchanged (a million addresses sort in ~1 s). */
const inPageOrder = (ledger: Ledger, candidates: Iterable<string>): string[] => {
  const cached = sortedCache.get(candidates);
  if (cached && cached.version === ledger.version) return cached.sorted;
  const sorted = [...candidates].sort();
  if (typeof candidates === 'object') sortedCache.set(candidates, { version: ledger.version, sorted });
  return sorted;
};

/** First index whose address sorts after `key`. */
const after = (sorted: readonly string[], key: string): number => {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as string) <= key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
};

const v2Limit = (cfg: Config): number => {
  const limit = cfg.limit ?? 1000;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 10_000)
    throw invalid('limit must be an integer between 1 and 10000');
  return limit;
};

const v2Key = (cfg: Config): string | undefined => {
  const key = cfg.paginationKey;
  if (key === undefined || key === null) return undefined;
  if (typeof key !== 'string') throw invalid('paginationKey must be a string');
  let bytes: Uint8Array;
  try {
    bytes = bs58.decode(key);
  } catch {
    throw invalid('paginationKey is not a key this node returned');
  }
  if (bytes.length !== 32) throw invalid('paginationKey is not a key this node returned');
  return key;
};

const programAccountsV2: Method = (ledger, params) => {
  const program = address(params, 0, 'program id');
  const cfg = config(params, 1);
  for (const field of Object.keys(cfg))
    if (!V2_FIELDS.has(field)) throw invalid(`unknown field \`${field}\``);
  if (cfg.changedSinceSlot !== undefined && cfg.changedSinceSlot !== null)
    throw invalid('changedSinceSlot is not supported by the local chain');
  const limit = v2Limit(cfg);
  const key = v2Key(cfg);
  const encoding = parseEncoding(cfg.encoding, 'base64');
  const filters = parseFilters(cfg);
  const slice = dataSlice(cfg);
  checkMinContextSlot(ledger, cfg);
  const sorted = inPageOrder(ledger, candidatesOf(ledger, program, filters));
  const start = key === undefined ? 0 : after(sorted, key);
  const page = sorted.slice(start, start + limit);
  const accounts = matching(ledger, program, page, filters, encoding, slice);
  const value = {
    accounts,
    paginationKey: start + limit < sorted.length ? (page[page.length - 1] as string) : null,
  };
  return cfg.withContext ? withContext(ledger, value) : value;
};

/** A transaction must fit one network packet (1 280 − 48 bytes of headers), as a validator checks. */
const PACKET_DATA_SIZE = 1232;

const decodeWire = (encoded: string, encoding: unknown): Uint8Array => {
  let raw: Uint8Array;
  try {
    raw = encoding === 'base64' ? Buffer.from(encoded, 'base64') : bs58.decode(encoded);
  } catch {
    throw invalid('transaction is not valid base58/base64');
  }
  if (raw.length > PACKET_DATA_SIZE)
    throw invalid(
      `${encoding === 'base64' ? 'base64' : 'base58'} encoded solana_sdk::transaction::versioned::VersionedTransaction ` +
        `too large: ${raw.length} bytes (max: encoded/raw ${encoding === 'base64' ? 1644 : 1683}/${PACKET_DATA_SIZE})`,
    );
  return raw;
};

const status = (tx: TxRecord) => ({
  slot: tx.slot,
  confirmations: null,
  err: tx.err,
  status: tx.err === null ? { Ok: null } : { Err: tx.err },
  confirmationStatus: 'finalized',
});

const transactionJson = (tx: TxRecord, cfg: Config) => {
  const decoded = VersionedTransaction.deserialize(Buffer.from(tx.raw, 'base64'));
  const message = decoded.message;
  const version = message.version;
  if (version !== 'legacy' && cfg.maxSupportedTransactionVersion === undefined)
    throw new RpcError(
      -32015,
      `Transaction version (${version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${version}`,
    );
  const encoding = cfg.encoding ?? 'json';
  const parsed = encoding === 'jsonParsed';
  const keys = tx.accountKeys;
  const signers = message.header.numRequiredSignatures;
  const instruction = (ix: {
    programIdIndex: number;
    accounts: number[];
    data: string;
    stackHeight?: number;
  }) =>
    parsed
      ? {
          programId: keys[ix.programIdIndex],
          accounts: ix.accounts.map((i) => keys[i]),
          data: ix.data,
          stackHeight: ix.stackHeight ?? 1,
        }
      : { ...ix, stackHeight: ix.stackHeight ?? null };
  const outer = message.compiledInstructions.map((ix) => ({
    programIdIndex: ix.programIdIndex,
    accounts: [...ix.accountKeyIndexes],
    data: bs58.encode(ix.data),
  }));
  const lookups = message.addressTableLookups.map((l) => ({
    accountKey: l.accountKey.toBase58(),
    writableIndexes: l.writableIndexes,
    readonlyIndexes: l.readonlyIndexes,
  }));
  const transaction =
    encoding === 'base64'
      ? [tx.raw, 'base64']
      : {
          signatures: decoded.signatures.map((s) => bs58.encode(s)),
          message: {
            accountKeys: parsed
              ? keys.map((pubkey, i) => ({
                  pubkey,
                  signer: i < signers,
                  writable: message.isAccountWritable(i),
                  source: i < message.staticAccountKeys.length ? 'transaction' : 'lookupTable',
                }))
              : message.staticAccountKeys.map((k) => k.toBase58()),
            ...(parsed ? {} : { header: message.header }),
            instructions: outer.map(instruction),
            recentBlockhash: message.recentBlockhash,
            ...(version === 'legacy' ? {} : { addressTableLookups: lookups }),
          },
        };
  return {
    slot: tx.slot,
    blockTime: tx.blockTime,
    ...(cfg.maxSupportedTransactionVersion === undefined ? {} : { version }),
    transaction,
    meta: {
      err: tx.err,
      status: tx.err === null ? { Ok: null } : { Err: tx.err },
      fee: tx.fee,
      preBalances: tx.preBalances,
      postBalances: tx.postBalances,
      innerInstructions: tx.innerInstructions.map((inner) => ({
        index: inner.index,
        instructions: inner.instructions.map(instruction),
      })),
      logMessages: tx.logs,
      preTokenBalances: tx.preTokenBalances,
      postTokenBalances: tx.postTokenBalances,
      rewards: [],
      loadedAddresses: tx.loaded,
      computeUnitsConsumed: tx.computeUnits,
    },
  };
};

const tokenAccount = (ledger: Ledger, pubkey: string) => {
  const account = ledger.getAccount(pubkey);
  const token = account && TOKEN_PROGRAMS.has(account.owner) ? readTokenAccount(account.data) : null;
  if (!account || !token) throw invalid('not a Token account');
  return { account, token };
};

const lamportsParam = (params: Params, i: number): bigint => {
  const value = params[i];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0)
    throw invalid('lamports must be a positive integer');
  return BigInt(value);
};

/** Method name → implementation. */
export const METHODS: Record<string, Method> = {
  getHealth: () => 'ok',
  getVersion: () => ({ 'solana-core': API_VERSION, 'feature-set': 0 }),
  getGenesisHash: (ledger) => ledger.genesisHash,
  getSlot: (ledger) => ledger.slot,
  getBlockHeight: (ledger) => ledger.slot,
  getTransactionCount: (ledger) => ledger.transactionCount,
  getEpochInfo: (ledger) => ({
    absoluteSlot: ledger.slot,
    blockHeight: ledger.slot,
    epoch: Math.floor(ledger.slot / SLOTS_PER_EPOCH),
    slotIndex: ledger.slot % SLOTS_PER_EPOCH,
    slotsInEpoch: SLOTS_PER_EPOCH,
    transactionCount: ledger.transactionCount,
  }),
  getEpochSchedule: () => ({
    slotsPerEpoch: SLOTS_PER_EPOCH,
    leaderScheduleSlotOffset: SLOTS_PER_EPOCH,
    warmup: false,
    firstNormalEpoch: 0,
    firstNormalSlot: 0,
  }),
  getRecentPrioritizationFees: (ledger, params) => {
    const accounts = params[0] ?? [];
    if (!Array.isArray(accounts)) throw invalid('expected an array of addresses');
    if (accounts.length > 128) throw invalid('Too many inputs provided; max 128');
    return ledger.prioritizationFees(accounts.map((_, i) => address(accounts, i)));
  },
  // The fee-estimate API of a provider (Helius): a level's percentile of the recent per-slot fees of the accounts.
  // A provider sees every landed price; this stand-in has the slots' minimums, so it answers their percentile.
  getPriorityFeeEstimate: (ledger, params) => {
    const cfg = config(params, 0);
    const keys = cfg.accountKeys ?? [];
    if (!Array.isArray(keys) || keys.length > 128) throw invalid('accountKeys: up to 128 addresses');
    const level = (cfg.options as { priorityLevel?: unknown } | undefined)?.priorityLevel ?? 'Medium';
    const percentile = PRIORITY_LEVELS[String(level)];
    if (percentile === undefined) throw invalid(`unknown priorityLevel ${String(level)}`);
    const fees = ledger
      .prioritizationFees(keys.map((_, i) => address(keys, i)))
      .map((f) => f.prioritizationFee)
      .sort((a, b) => a - b);
    const at = Math.max(0, Math.ceil((percentile / 100) * fees.length) - 1);
    return { priorityFeeEstimate: fees[Math.min(at, fees.length - 1)] ?? 0 };
  },
  getLatestBlockhash: (ledger) => withContext(ledger, ledger.latestBlockhash()),
  isBlockhashValid: (ledger, params) =>
    withContext(ledger, ledger.isBlockhashValid(str(params, 0, 'blockhash'))),
  getFeeForMessage: (ledger, params) => {
    try {
      return withContext(ledger, ledger.feeForMessage(str(params, 0, 'message')));
    } catch (error) {
      if (error instanceof RpcError) throw error;
      throw invalid('message could not be decoded');
    }
  },
  getMinimumBalanceForRentExemption: (ledger, params) => {
    const size = params[0];
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) throw invalid('data length');
    return Number(ledger.svm.minimumBalanceForRentExemption(BigInt(size)));
  },
  getBalance: (ledger, params) => withContext(ledger, Number(ledger.balance(address(params, 0)))),
  getAccountInfo: (ledger, params) => {
    const cfg = config(params, 1);
    const account = ledger.getAccount(address(params, 0));
    const encoding = parseEncoding(cfg.encoding, 'base58');
    return withContext(ledger, account ? encodeAccount(ledger, account, encoding, dataSlice(cfg)) : null);
  },
  getMultipleAccounts: (ledger, params) => {
    const keys = params[0];
    if (!Array.isArray(keys) || keys.length > 100) throw invalid('expected at most 100 addresses');
    const cfg = config(params, 1);
    const encoding = parseEncoding(cfg.encoding, 'base58');
    return withContext(
      ledger,
      keys.map((_, i) => {
        const account = ledger.getAccount(address(keys, i));
        return account ? encodeAccount(ledger, account, encoding, dataSlice(cfg)) : null;
      }),
    );
  },
  getProgramAccounts: programAccounts,
  getProgramAccountsV2: programAccountsV2,
  getTokenAccountBalance: (ledger, params) => {
    const { token } = tokenAccount(ledger, address(params, 0));
    return withContext(ledger, uiTokenAmount(token.amount, decimalsOf(ledger, token.mint)));
  },
  getTokenSupply: (ledger, params) => {
    const account = ledger.getAccount(address(params, 0, 'mint'));
    const mint = account && TOKEN_PROGRAMS.has(account.owner) ? readMint(account.data) : null;
    if (!mint) throw invalid('not a Token mint');
    return withContext(ledger, uiTokenAmount(mint.supply, mint.decimals));
  },
  getTokenLargestAccounts: (ledger, params) => {
    const mint = address(params, 0, 'mint');
    const decimals = decimalsOf(ledger, mint);
    const rows = [...ledger.index.tokenAccountsOfMint(mint)]
      .map((pubkey) => ({
        pubkey,
        amount: readTokenAccount(ledger.getAccount(pubkey)?.data ?? new Uint8Array())?.amount,
      }))
      .filter((r): r is { pubkey: string; amount: bigint } => r.amount !== undefined)
      .sort((a, b) => (a.amount < b.amount ? 1 : a.amount > b.amount ? -1 : 0))
      .slice(0, 20);
    return withContext(
      ledger,
      rows.map((r) => ({ address: r.pubkey, ...uiTokenAmount(r.amount, decimals) })),
    );
  },
  getTokenAccountsByOwner: (ledger, params) => {
    const owner = address(params, 0, 'owner');
    const filter = config(params, 1);
    const cfg = config(params, 2);
    const encoding = parseEncoding(cfg.encoding, 'base58');
    const mint = typeof filter.mint === 'string' ? filter.mint : undefined;
    const program = typeof filter.programId === 'string' ? filter.programId : undefined;
    if (!mint && !program) throw invalid('expected a mint or programId filter');
    const value: unknown[] = [];
    for (const pubkey of ledger.index.tokenAccountsOfOwner(owner)) {
      const account = ledger.getAccount(pubkey);
      const token = account ? readTokenAccount(account.data) : null;
      if (!account || !token || token.owner !== owner) continue;
      if ((mint && token.mint !== mint) || (program && account.owner !== program)) continue;
      value.push({ pubkey, account: encodeAccount(ledger, account, encoding, dataSlice(cfg)) });
    }
    return withContext(ledger, value);
  },
  requestAirdrop: (ledger, params) => ledger.airdrop(address(params, 0, 'pubkey'), lamportsParam(params, 1)),
  sendTransaction: (ledger, params) => {
    const cfg = config(params, 1);
    const raw = decodeWire(str(params, 0, 'transaction'), cfg.encoding);
    return ledger.submit(raw, { skipPreflight: cfg.skipPreflight === true });
  },
  simulateTransaction: (ledger, params) => {
    const cfg = config(params, 1);
    if (cfg.sigVerify === true && cfg.replaceRecentBlockhash === true)
      throw invalid('sigVerify may not be used with replaceRecentBlockhash');
    const raw = decodeWire(str(params, 0, 'transaction'), cfg.encoding);
    const result = ledger.simulate(raw, {
      sigVerify: cfg.sigVerify === true,
      replaceRecentBlockhash: cfg.replaceRecentBlockhash === true,
    });
    const wanted = (cfg.accounts as { addresses?: string[] } | undefined)?.addresses;
    const accounts = wanted
      ? wanted.map((pubkey) => {
          const account = result.postAccounts.get(pubkey) ?? ledger.getAccount(pubkey);
          return account ? encodeAccount(ledger, account, 'base64') : null;
        })
      : null;
    const { postAccounts: _, ...value } = result;
    return withContext(ledger, { ...value, accounts, innerInstructions: null });
  },
  getSignatureStatuses: (ledger, params) => {
    const signatures = params[0];
    if (!Array.isArray(signatures) || signatures.length > 256)
      throw invalid('expected at most 256 signatures');
    return withContext(
      ledger,
      signatures.map((s) => {
        const tx = typeof s === 'string' ? ledger.getTx(s) : undefined;
        return tx ? status(tx) : null;
      }),
    );
  },
  getTransaction: (ledger, params) => {
    const tx = ledger.getTx(str(params, 0, 'signature'));
    return tx ? transactionJson(tx, config(params, 1)) : null;
  },
  getSignaturesForAddress: (ledger, params) => {
    const cfg = config(params, 1);
    const limit = typeof cfg.limit === 'number' ? Math.min(Math.max(cfg.limit, 1), 1000) : 1000;
    let list = ledger.signaturesFor(address(params, 0));
    if (typeof cfg.before === 'string') {
      const at = list.findIndex((tx) => tx.signature === cfg.before);
      list = at >= 0 ? list.slice(at + 1) : list;
    }
    if (typeof cfg.until === 'string') {
      const at = list.findIndex((tx) => tx.signature === cfg.until);
      list = at >= 0 ? list.slice(0, at) : list;
    }
    return list.slice(0, limit).map((tx) => ({
      signature: tx.signature,
      slot: tx.slot,
      err: tx.err,
      memo: tx.memo,
      blockTime: tx.blockTime,
      confirmationStatus: 'finalized',
    }));
  },
};
