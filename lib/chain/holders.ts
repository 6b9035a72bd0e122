// Reading every holder of a mint without one huge answer. Real nodes refuse, time out on or rate-limit a
// getProgramAccounts of a million token accounts (hundreds of MB of JSON), so the read is split into pages, each
// answer read with a byte cap, and what is kept of each account is 40 bytes (owner, amount) in typed columns:
//
//   rpc     standard getProgramAccounts with the filters a node's mint index serves: classic SPL Token
//           `dataSize: 165` + mint; Token-2022 as two queries, `dataSize: 165` + mint and the account-type byte
//           (offset 165 = 2) + mint. A query whose answer exceeds the page size is split by the owner's leading
//           bytes (memcmp at offset 32: 256 partitions per byte, only the overflowing ones split further).
//   helius  the provider's getProgramAccountsV2: the same filters, `limit` per page, `paginationKey` as cursor.
//
// Every page is read with `withContext`; the first page's slot is passed as `minContextSlot` to the rest, so no
// page answers from an older state, and the read reports the slot range it saw.
//
// A page that fails for a passing reason (HTTP 429 or 5xx, a timeout, -32016 "minimum context slot not reached"
// from a node behind the load balancer's previous one, any transient code) is read again after a backoff (the
// provider's Retry-After when it sent one); the pages already read are kept, so the read resumes at the page that
// failed. A page that still fails after `attempts` ends the read with a transient ChainError naming it (the
// builder's message is redelivered later), and a backoff that does not fit the invocation's deadline answers 503
// at once.
import bs58 from 'bs58';
import { canWait } from '../core/deadline.js';
import { sortOrder } from '../core/key-order.js';
import { ChainError, fromRpcAnswer, toChainError } from './errors.js';
import { backoffMs, type RpcLimiter, retryAfterMs, rpcBusy, rpcTimeoutMs } from './rpc-budget.js';
import { TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from './token.js';

export type HoldersSource = 'rpc' | 'helius';

export interface HoldersOptions {
  /** Standard RPC (partitioned getProgramAccounts) or the provider's paginated getProgramAccountsV2. */
  source?: HoldersSource;
  /** Accounts per page: the V2 `limit`, or the size above which an RPC partition is split. 1–10 000. */
  pageSize?: number;
  /** Reads of one page before the read gives up, the first included. Default 6. */
  attempts?: number;
  /** First backoff between reads of a failed page (ms), doubling, with jitter. Default 500. */
  retryBaseMs?: number;
}

export interface ListHoldersOptions {
  /** The mint's token program when known: only its queries are made. Default: both programs. */
  programId?: string;
  /** Token accounts expected (e.g. the previous snapshot's holder count): large sets start partitioned. */
  expectedAccounts?: number;
  /** Stop with a HoldersLimitError once more token accounts with a balance than this were read. */
  maxAccounts?: number;
}

/** The mint has more token accounts with a balance than the caller accepts: reading again will not help. */
export class HoldersLimitError extends Error {
  constructor(readonly limit: number) {
    super(`more than ${limit} token accounts hold the mint`);
    this.name = 'HoldersLimitError';
  }
}

/** Holders of a mint: one row per wallet owner, balances of all its token accounts summed, zero balances left out. */
export interface TokenHolders {
  readonly count: number;
  /** count × 32-byte owner keys, strictly ascending by bytes. */
  readonly owners: Buffer;
  /** Summed raw balances in the same order; every entry > 0. */
  readonly balances: BigUint64Array;
  /** Context slots of the pages read: the holders are the chain's between these slots. */
  readonly slots: { first: number; last: number };
  /** RPC answers read. */
  readonly pages: number;
  /** Page reads that failed for a passing reason and were read again. */
  readonly retries: number;
}

export const DEFAULT_HOLDERS_PAGE_SIZE = 5_000;
export const MAX_HOLDERS_PAGE_SIZE = 10_000;
/** Owner-prefix bytes an RPC partition may be split down to (256³ partitions): deeper, the read is refused. */
export const MAX_PARTITION_BYTES = 3;
const ACCOUNT_BYTES = 165;
const ACCOUNT_TYPE_ACCOUNT = 2;
/** An account in an answer with a 40-byte slice is ~280 bytes of JSON; anything past twice that is refused. */
const BYTES_PER_ACCOUNT = 600;
const ANSWER_OVERHEAD = 8_192;
const CONCURRENCY = 4;
const U64_MAX = 2n ** 64n - 1n;

/** Collects (owner, amount) rows in typed columns; `finish` sorts and sums them per owner. */
export class HolderAccumulator {
  private keys: Buffer;
  private amounts: BigUint64Array;
  private n = 0;
  private firstSlot = Number.POSITIVE_INFINITY;
  private lastSlot = 0;
  pages = 0;
  retries = 0;

  constructor(
    expected = 1024,
    private readonly maxAccounts = Number.POSITIVE_INFINITY,
  ) {
    const capacity = Math.max(16, expected);
    this.keys = Buffer.allocUnsafe(capacity * 32);
    this.amounts = new BigUint64Array(capacity);
  }

  /** One token account: owner key at bytes[offset..offset+32); zero amounts are dropped. */
  add(bytes: Uint8Array, offset: number, amount: bigint): void {
    if (amount === 0n) return;
    if (this.n >= this.maxAccounts) throw new HoldersLimitError(this.maxAccounts);
    if (this.n === this.amounts.length) this.grow();
    this.keys.set(bytes.subarray(offset, offset + 32), this.n * 32);
    this.amounts[this.n] = amount;
    this.n++;
  }

  /** A page was read at this context slot. */
  page(slot: number): void {
    this.pages++;
    if (slot < this.firstSlot) this.firstSlot = slot;
    if (slot > this.lastSlot) this.lastSlot = slot;
  }

  get size(): number {
    return this.n;
  }

  private grow(): void {
    const capacity = this.amounts.length * 2;
    const keys = Buffer.allocUnsafe(capacity * 32);
    this.keys.copy(keys, 0, 0, this.n * 32);
    const amounts = new BigUint64Array(capacity);
    amounts.set(this.amounts);
    this.keys = keys;
    this.amounts = amounts;
  }

  /** Rows sorted by owner bytes, one per owner with its amounts summed. */
  finish(): TokenHolders {
    const n = this.n;
    const order = sortOrder(this.keys, n);
    const owners = Buffer.allocUnsafe(n * 32);
    const balances = new BigUint64Array(n);
    let count = 0;
    for (let i = 0; i < n; i++) {
      const from = order[i] as number;
      const amount = this.amounts[from] as bigint;
      if (
        count > 0 &&
        this.keys.compare(owners, (count - 1) * 32, count * 32, from * 32, from * 32 + 32) === 0
      ) {
        const sum = (balances[count - 1] as bigint) + amount;
        if (sum > U64_MAX) throw new RangeError('a holder balance exceeds a u64');
        balances[count - 1] = sum;
        continue;
      }
      this.keys.copy(owners, count * 32, from * 32, from * 32 + 32);
      balances[count] = amount;
      count++;
    }
    return {
      count,
      owners: owners.subarray(0, count * 32),
      balances: balances.subarray(0, count),
      slots: { first: this.pages ? this.firstSlot : 0, last: this.lastSlot },
      pages: this.pages,
      retries: this.retries,
    };
  }
}

/** Holders from (owner, amount) pairs, as the paged read would give them (tests, one-shot comparisons). */
export const holdersFromEntries = (entries: Iterable<readonly [string, bigint]>, slot = 0): TokenHolders => {
  const acc = new HolderAccumulator();
  for (const [owner, amount] of entries) {
    const key = bs58.decode(owner);
    if (key.length !== 32) throw new RangeError(`owner is not a 32-byte address: ${owner}`);
    acc.add(key, 0, amount);
  }
  acc.page(slot);
  return acc.finish();
};

/** Owner (base58) → balance: small sets, tests and logs (a million encodings cost seconds). */
export const holdersToMap = (holders: TokenHolders): Map<string, bigint> => {
  const map = new Map<string, bigint>();
  for (let i = 0; i < holders.count; i++)
    map.set(bs58.encode(holders.owners.subarray(i * 32, i * 32 + 32)), holders.balances[i] as bigint);
  return map;
};

/** One JSON-RPC call whose answer is read up to `maxBytes`: `tooLarge` past it (the rest is not downloaded). */
export type BoundedCall = (
  method: string,
  params: unknown[],
  maxBytes: number,
) => Promise<{ tooLarge: true } | { tooLarge: false; result: unknown }>;

/**
 * A JSON-RPC call over fetch with a byte cap on the answer, the scan family's budget taken first, and a timeout
 * shortened to what the invocation has left.
 */
export const boundedFetchCall =
  (rpcUrl: string, timeoutMs: number, limiter?: RpcLimiter): BoundedCall =>
  async (method, params, maxBytes) => {
    await limiter?.take(method);
    const signal = AbortSignal.timeout(rpcTimeoutMs(timeoutMs));
    let text: string;
    try {
      const response = await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        signal,
      });
      if (!response.ok) {
        await response.body?.cancel();
        const wait = retryAfterMs(response.headers.get('retry-after'));
        if (response.status === 429) limiter?.pause(method, wait ?? 0);
        throw fromRpcAnswer(method, {
          status: response.status,
          ...(wait === undefined ? {} : { retryAfterMs: wait }),
        });
      }
      const body = await readCapped(response, maxBytes);
      if (body === undefined) return { tooLarge: true };
      text = body;
    } catch (error) {
      throw error instanceof ChainError ? error : toChainError(error, { action: method });
    }
    const answer = JSON.parse(text) as { result?: unknown; error?: { code: number; message: string } };
    if (answer.error) throw fromRpcAnswer(method, { error: answer.error });
    return { tooLarge: false, result: answer.result };
  };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One page, read again after a backoff while it fails for a passing reason (see the top of the file). */
const pageWithRetry = async (
  state: ReadState,
  method: string,
  params: unknown[],
  maxBytes: number,
): ReturnType<BoundedCall> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await state.call(method, params, maxBytes);
    } catch (error) {
      if (!(error instanceof ChainError) || !error.transient) throw error;
      if (attempt >= state.attempts)
        throw new ChainError(
          'RPC_UNAVAILABLE',
          `${error.message} (the holder read could not finish: a page failed ${attempt} times, ${state.acc.pages} pages were read)`,
          { cause: error, ...(error.retryAfterMs === undefined ? {} : { retryAfterMs: error.retryAfterMs }) },
        );
      const wait = backoffMs(attempt, state.retryBaseMs, error.retryAfterMs);
      if (!canWait(wait)) throw rpcBusy(wait);
      state.acc.retries++;
      await sleep(wait);
    }
  }
};

const readCapped = async (response: Response, maxBytes: number): Promise<string | undefined> => {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total).toString('utf8');
};

type Filter = { dataSize: number } | { memcmp: { offset: number; bytes: string } };
type RawAccount = { account?: { data?: unknown } };

/** The indexed queries of a mint: [program, filters] — the mint filter is added by the caller. */
const queriesOf = (mint: string, programId: string | undefined): Array<[string, Filter[]]> => {
  const byMint: Filter = { memcmp: { offset: 0, bytes: mint } };
  const all: Array<[string, Filter[]]> = [
    [TOKEN_PROGRAM_ADDRESS, [{ dataSize: ACCOUNT_BYTES }, byMint]],
    [TOKEN_2022_PROGRAM_ADDRESS, [{ dataSize: ACCOUNT_BYTES }, byMint]],
    [
      TOKEN_2022_PROGRAM_ADDRESS,
      [{ memcmp: { offset: ACCOUNT_BYTES, bytes: bs58.encode([ACCOUNT_TYPE_ACCOUNT]) } }, byMint],
    ],
  ];
  return programId === undefined ? all : all.filter(([program]) => program === programId);
};

const malformed = (method: string, what: string) =>
  new ChainError('RPC_ERROR', `${method}: malformed answer (${what})`);

/** Adds the (owner, amount) of each account of an answer (data sliced to owner ‖ amount). */
const addAccounts = (acc: HolderAccumulator, method: string, accounts: unknown): number => {
  if (!Array.isArray(accounts)) throw malformed(method, 'accounts are not a list');
  for (const item of accounts as RawAccount[]) {
    const data = item?.account?.data;
    if (!Array.isArray(data) || typeof data[0] !== 'string') throw malformed(method, 'account data');
    const bytes = Buffer.from(data[0], 'base64');
    if (bytes.length < 40) continue;
    acc.add(bytes, 0, bytes.readBigUInt64LE(32));
  }
  return accounts.length;
};

const contextSlot = (method: string, result: unknown): number => {
  const slot = (result as { context?: { slot?: unknown } } | null)?.context?.slot;
  if (typeof slot !== 'number') throw malformed(method, 'no context slot');
  return slot;
};

const baseConfig = (filters: Filter[], minContextSlot: number | undefined) => ({
  commitment: 'confirmed',
  encoding: 'base64',
  dataSlice: { offset: 32, length: 40 },
  withContext: true,
  filters,
  ...(minContextSlot === undefined ? {} : { minContextSlot }),
});

interface ReadState {
  acc: HolderAccumulator;
  call: BoundedCall;
  pageSize: number;
  attempts: number;
  retryBaseMs: number;
  minContextSlot?: number;
}

const startDepth = (expected: number | undefined, pageSize: number): number =>
  expected !== undefined && expected > pageSize ? Math.min(MAX_PARTITION_BYTES, 1) : 0;

/** Standard getProgramAccounts over owner-prefix partitions, four in flight, overflowing ones split. */
const readPartitioned = async (state: ReadState, program: string, filters: Filter[], depth: number) => {
  const method = 'getProgramAccounts';
  const maxBytes = state.pageSize * BYTES_PER_ACCOUNT + ANSWER_OVERHEAD;
  const queue: Uint8Array[] = depth === 0 ? [new Uint8Array(0)] : children(new Uint8Array(0));
  const readOne = async (prefix: Uint8Array) => {
    const partition: Filter[] =
      prefix.length === 0 ? filters : [...filters, { memcmp: { offset: 32, bytes: bs58.encode(prefix) } }];
    const answer = await pageWithRetry(
      state,
      method,
      [program, baseConfig(partition, state.minContextSlot)],
      maxBytes,
    );
    const value = answer.tooLarge ? undefined : (answer.result as { value?: unknown } | null)?.value;
    if (answer.tooLarge || (Array.isArray(value) && value.length > state.pageSize)) {
      if (prefix.length >= MAX_PARTITION_BYTES)
        throw new ChainError(
          'RPC_ERROR',
          `${method}: more than ${state.pageSize} token accounts under owner prefix ${Buffer.from(prefix).toString('hex')}`,
        );
      queue.push(...children(prefix));
      return;
    }
    const slot = contextSlot(method, answer.result);
    state.minContextSlot ??= slot;
    addAccounts(state.acc, method, value);
    state.acc.page(slot);
  };
  const worker = async () => {
    for (let prefix = queue.shift(); prefix; prefix = queue.shift()) await readOne(prefix);
  };
  // The first answer sets minContextSlot for the rest.
  const first = queue.shift();
  if (first) await readOne(first);
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
};

const children = (prefix: Uint8Array): Uint8Array[] =>
  Array.from({ length: 256 }, (_, b) => {
    const child = new Uint8Array(prefix.length + 1);
    child.set(prefix);
    child[prefix.length] = b;
    return child;
  });

/** The provider's getProgramAccountsV2: `limit` accounts a page, until the cursor is null. */
const readCursor = async (state: ReadState, program: string, filters: Filter[]) => {
  const method = 'getProgramAccountsV2';
  const maxBytes = state.pageSize * BYTES_PER_ACCOUNT + ANSWER_OVERHEAD;
  let paginationKey: string | undefined;
  do {
    const config = {
      ...baseConfig(filters, state.minContextSlot),
      limit: state.pageSize,
      ...(paginationKey === undefined ? {} : { paginationKey }),
    };
    const answer = await pageWithRetry(state, method, [program, config], maxBytes);
    if (answer.tooLarge) throw new ChainError('RPC_ERROR', `${method}: a page exceeds ${maxBytes} bytes`);
    const result = answer.result as { value?: Page } & Page;
    // The wrapped shape ({context, value: {accounts, paginationKey}}); some providers put both beside context.
    const page: Page = result?.value ?? result;
    const slot = contextSlot(method, result);
    state.minContextSlot ??= slot;
    const count = addAccounts(state.acc, method, page?.accounts);
    if (count > state.pageSize) throw malformed(method, `${count} accounts for a limit of ${state.pageSize}`);
    state.acc.page(slot);
    const next = page?.paginationKey;
    if (next !== null && next !== undefined && typeof next !== 'string')
      throw malformed(method, 'paginationKey');
    if (next === paginationKey && next !== undefined && next !== null)
      throw malformed(method, 'cursor did not move');
    paginationKey = next ?? undefined;
  } while (paginationKey !== undefined);
};

type Page = { accounts?: unknown; paginationKey?: unknown };

/** Every holder of `mint` through `call`, page by page. */
export const readTokenHolders = async (
  call: BoundedCall,
  mint: string,
  options: HoldersOptions & ListHoldersOptions = {},
): Promise<TokenHolders> => {
  const pageSize = Math.min(
    MAX_HOLDERS_PAGE_SIZE,
    Math.max(1, options.pageSize ?? DEFAULT_HOLDERS_PAGE_SIZE),
  );
  // Columns start at most 64k rows (2.6 MB) and double: an overestimated hint costs nothing.
  const acc = new HolderAccumulator(Math.min(options.expectedAccounts ?? 1024, 65_536), options.maxAccounts);
  const state: ReadState = {
    acc,
    call,
    pageSize,
    attempts: Math.max(1, options.attempts ?? 6),
    retryBaseMs: options.retryBaseMs ?? 500,
  };
  for (const [program, filters] of queriesOf(mint, options.programId)) {
    if (options.source === 'helius') await readCursor(state, program, filters);
    else await readPartitioned(state, program, filters, startDepth(options.expectedAccounts, pageSize));
  }
  return acc.finish();
};
