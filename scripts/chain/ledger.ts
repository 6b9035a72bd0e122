// The local chain's state machine: litesvm executes transactions with the real System, SPL Token, Token-2022,
// ATA and Memo programs; this class adds what a validator has and litesvm lacks — slots and block heights
// that advance with wall time, a queue of recent blockhashes that expire after 150 blocks, a signature
// history with statuses and metadata, and account indexes for getProgramAccounts.
import { createHash, randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import {
  Keypair,
  PublicKey,
  SystemProgram,
  Transaction,
  VersionedMessage,
  VersionedTransaction,
} from '@solana/web3.js';
import bs58 from 'bs58';
import { Account, Clock, FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from 'litesvm';
import { AccountIndex, type IndexedAccount } from './accounts-index.js';
import {
  landsOnChain,
  RpcError,
  type RpcTxError,
  readMint,
  readTokenAccount,
  SYSTEM_PROGRAM,
  TOKEN_2022_PROGRAM,
  TOKEN_PROGRAM,
  txErrorJson,
  uiTokenAmount,
} from './codec.js';
import {
  computeBudgetOf,
  type Decoded,
  decodeTransaction,
  type InnerInstructions,
  innerInstructionsOf,
  memoOf,
  preflightError,
} from './transaction.js';

type Address = Parameters<LiteSVM['getAccount']>[0];
type KitAccount = Parameters<LiteSVM['setAccount']>[0];
type LiteAccount = ReturnType<LiteSVM['getProgramAccounts']>[number];

/**
 * The napi object behind litesvm's public class. Its public getAccount/setAccount convert addresses through a
 * freshly built @solana/kit codec on every call (~45 µs); reading accounts by raw bytes is ~8× faster, which is
 * what makes getProgramAccounts over 100k token accounts and snapshot restores quick. Used only when present
 * (litesvm is pinned), with the public API as the fallback.
 */
interface NativeSvm {
  getAccount(pubkey: Uint8Array): Account | null;
  setAccount(pubkey: Uint8Array, account: Account): void;
}

const nativeOf = (svm: LiteSVM): NativeSvm | undefined => {
  const inner = (svm as unknown as { inner?: Partial<NativeSvm> }).inner;
  return typeof inner?.getAccount === 'function' && typeof inner.setAccount === 'function'
    ? (inner as NativeSvm)
    : undefined;
};

const ownerNames = new Map<string, string>();
/** base58 of an owner key, memoised: accounts share a handful of owners. */
const ownerName = (owner: Uint8Array): string => {
  const hex = Buffer.from(owner.buffer, owner.byteOffset, owner.byteLength).toString('hex');
  let name = ownerNames.get(hex);
  if (name === undefined) {
    name = bs58.encode(owner);
    if (ownerNames.size < 10_000) ownerNames.set(hex, name);
  }
  return name;
};

/** Blocks a blockhash stays valid for, as on mainnet. */
export const BLOCKHASH_VALIDITY = 150;
export const LAMPORTS_PER_SIGNATURE = 5000;
/** Slots of prioritization fees a validator keeps (and getRecentPrioritizationFees answers). */
export const PRIORITIZATION_FEE_SLOTS = 150;
const SLOTS_PER_EPOCH = 432_000n;
const TX_HISTORY_IN_MEMORY = 20_000;
const FAUCET_FLOOR = 10n ** 17n;

export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: ReturnType<typeof uiTokenAmount>;
}

/** One processed transaction, as kept for getSignatureStatuses, getTransaction and getSignaturesForAddress. */
export interface TxRecord {
  signature: string;
  slot: number;
  blockTime: number;
  err: RpcTxError | null;
  logs: string[];
  fee: number;
  computeUnits: number;
  /** Compute-unit price it paid (micro-lamports per unit). */
  microLamports?: string;
  /** The wire transaction, base64. */
  raw: string;
  accountKeys: string[];
  loaded: { writable: string[]; readonly: string[] };
  preBalances: number[];
  postBalances: number[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  innerInstructions: InnerInstructions[];
  memo: string | null;
}

export interface SimulationResult {
  err: RpcTxError | null;
  logs: string[];
  unitsConsumed: number;
  returnData: { programId: string; data: [string, 'base64'] } | null;
  /** Account states after the simulated transaction (empty when it failed). */
  postAccounts: Map<string, AccountState>;
}

export interface AccountState extends IndexedAccount {
  address: string;
}

export interface LedgerOptions {
  /** Milliseconds per slot; the blockhash changes every slot. Default 400. */
  slotMs?: number;
}

export interface LedgerState {
  slot: bigint;
  genesisHash: string;
  faucet: Keypair;
  accounts: AccountState[];
  txs: TxRecord[];
  transactionCount: number;
}

/** What a validator charges: per signature, plus price × limit in micro-lamports rounded up (litesvm charges the same). */
const feeOf = (signatures: number, budget: { units: number; microLamports: bigint }): number =>
  Number(
    BigInt(LAMPORTS_PER_SIGNATURE * signatures) +
      (budget.microLamports * BigInt(budget.units) + 999_999n) / 1_000_000n,
  );

/** litesvm plus slots, expiring blockhashes, a signature history and account indexes. */
export class Ledger extends EventEmitter<{ transaction: [TxRecord]; slot: [number] }> {
  readonly svm: LiteSVM;
  readonly genesisHash: string;
  readonly faucet: Keypair;
  readonly index = new AccountIndex();
  private readonly native: NativeSvm | undefined;
  private slotValue: bigint;
  private blockhash: string;
  private readonly blockhashes = new Map<string, bigint>();
  private readonly txs = new Map<string, TxRecord>();
  private readonly byAddress = new Map<string, string[]>();
  /** Per recent slot, the compute-unit price and written accounts of each transaction that landed in it. */
  private readonly slotPrices = new Map<number, Array<{ price: bigint; writable: string[] }>>();
  private timer: NodeJS.Timeout | undefined;
  private txCount = 0;
  /** Bumped on every change, so snapshots are written only when something changed. */
  version = 0;

  constructor(
    private readonly options: LedgerOptions = {},
    restored?: LedgerState,
  ) {
    super();
    this.svm = new LiteSVM().withBlockhashCheck(false).withLamports(10n ** 18n);
    this.native = nativeOf(this.svm);
    this.genesisHash = restored?.genesisHash ?? bs58.encode(randomBytes(32));
    this.faucet = restored?.faucet ?? Keypair.generate();
    this.slotValue = restored?.slot ?? 1n;
    this.txCount = restored?.transactionCount ?? 0;
    for (const program of [TOKEN_PROGRAM, TOKEN_2022_PROGRAM])
      for (const account of this.svm.getProgramAccounts(program as Address))
        this.index.update(account.address, this.toIndexed(account));
    for (const account of restored?.accounts ?? []) this.putAccount(account);
    for (const tx of restored?.txs ?? []) this.remember(tx);
    const faucetBalance = this.balance(this.faucet.publicKey.toBase58());
    if (faucetBalance < FAUCET_FLOOR)
      this.putAccount({
        address: this.faucet.publicKey.toBase58(),
        owner: SYSTEM_PROGRAM,
        lamports: FAUCET_FLOOR * 10n,
        data: new Uint8Array(),
        executable: false,
      });
    this.blockhash = bs58.encode(
      createHash('sha256').update(this.genesisHash).update(randomBytes(8)).digest(),
    );
    this.blockhashes.set(this.blockhash, this.slotValue + BigInt(BLOCKHASH_VALIDITY));
    this.setClock();
  }

  /** Start advancing one slot every `slotMs`. */
  start(): void {
    this.timer ??= setInterval(() => this.advance(), this.options.slotMs ?? 400);
  }

  /** Stop the slot clock. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Advance one slot: a new blockhash, and blockhashes older than 150 blocks expire. */
  advance(slots = 1): void {
    for (let i = 0; i < slots; i++) {
      this.slotValue += 1n;
      this.blockhash = bs58.encode(
        createHash('sha256').update(this.blockhash).update(this.slotValue.toString()).digest(),
      );
      this.blockhashes.set(this.blockhash, this.slotValue + BigInt(BLOCKHASH_VALIDITY));
    }
    for (const [hash, lastValid] of this.blockhashes) {
      if (lastValid >= this.slotValue) break;
      this.blockhashes.delete(hash);
    }
    for (const slot of this.slotPrices.keys()) {
      if (slot > this.slot - PRIORITIZATION_FEE_SLOTS) break;
      this.slotPrices.delete(slot);
    }
    this.setClock();
    this.emit('slot', Number(this.slotValue));
  }

  private setClock() {
    const epoch = this.slotValue / SLOTS_PER_EPOCH;
    const now = BigInt(Math.floor(Date.now() / 1000));
    this.svm.setClock(new Clock(this.slotValue, now, epoch, epoch + 1n, now));
  }

  /** Current slot; the block height equals it (no skipped slots). */
  get slot(): number {
    return Number(this.slotValue);
  }

  get transactionCount(): number {
    return this.txCount;
  }

  /** The latest blockhash and the last block height at which transactions using it are accepted. */
  latestBlockhash(): { blockhash: string; lastValidBlockHeight: number } {
    return {
      blockhash: this.blockhash,
      lastValidBlockHeight: Number(this.blockhashes.get(this.blockhash) ?? this.slotValue),
    };
  }

  /** Whether a transaction built on this blockhash would still be accepted. */
  isBlockhashValid(blockhash: string): boolean {
    const lastValid = this.blockhashes.get(blockhash);
    return lastValid !== undefined && lastValid >= this.slotValue;
  }

  /** The current state of an account, or null when it does not exist (zero lamports). */
  getAccount(address: string): AccountState | null {
    if (this.native) {
      const raw = this.native.getAccount(bs58.decode(address));
      const lamports = raw?.lamports() ?? 0n;
      if (!raw || lamports === 0n) return null;
      return {
        address,
        owner: ownerName(raw.owner()),
        lamports,
        data: raw.data(),
        executable: raw.executable(),
      };
    }
    const account = this.svm.getAccount(address as Address);
    if (!account.exists || account.lamports === 0n) return null;
    return { address, ...this.toIndexed(account) };
  }

  private toIndexed(account: LiteAccount): IndexedAccount {
    return {
      owner: account.programAddress,
      lamports: account.lamports,
      data: account.data as Uint8Array,
      executable: account.executable,
    };
  }

  /** Lamports of an address (0 when absent). */
  balance(address: string): bigint {
    return this.svm.getBalance(address as Address) ?? 0n;
  }

  /** Write an account directly (snapshot restore, test setup) and index it. */
  putAccount(account: AccountState): void {
    if (this.native) {
      const owner = bs58.decode(account.owner);
      this.native.setAccount(
        bs58.decode(account.address),
        new Account(account.lamports, account.data, owner, account.executable, 0n),
      );
    } else
      this.svm.setAccount({
        address: account.address,
        programAddress: account.owner,
        lamports: account.lamports,
        data: account.data,
        executable: account.executable,
        space: BigInt(account.data.length),
      } as unknown as KitAccount);
    this.index.update(account.address, account);
    this.version++;
  }

  /** Accounts owned by a program, from the index (litesvm's own scan for programs the index never saw). */
  programAccountAddresses(program: string): Iterable<string> {
    const indexed = this.index.ownedBy(program);
    if (indexed.size > 0) return indexed;
    return this.svm.getProgramAccounts(program as Address).map((a) => a.address as string);
  }

  /** A processed transaction by signature. */
  getTx(signature: string): TxRecord | undefined {
    return this.txs.get(signature);
  }

  /** Processed transactions that referenced an address, newest first. */
  signaturesFor(address: string): TxRecord[] {
    const list = this.byAddress.get(address) ?? [];
    const out: TxRecord[] = [];
    for (let i = list.length - 1; i >= 0; i--) {
      const tx = this.txs.get(list[i] as string);
      if (tx) out.push(tx);
    }
    return out;
  }

  /** The most recent transactions, oldest first, for snapshots. */
  recentTxs(limit: number): TxRecord[] {
    return [...this.txs.values()].slice(-limit);
  }

  private remember(tx: TxRecord) {
    this.txs.set(tx.signature, tx);
    for (const key of tx.accountKeys) {
      let list = this.byAddress.get(key);
      if (!list) {
        list = [];
        this.byAddress.set(key, list);
      }
      list.push(tx.signature);
    }
    while (this.txs.size > TX_HISTORY_IN_MEMORY) {
      const [oldest] = this.txs.keys();
      if (oldest === undefined) break;
      const old = this.txs.get(oldest);
      this.txs.delete(oldest);
      for (const key of old?.accountKeys ?? []) {
        const list = this.byAddress.get(key);
        if (list?.[0] === oldest) list.shift();
        if (list?.length === 0) this.byAddress.delete(key);
      }
    }
  }

  private decode(raw: Uint8Array): Decoded {
    return decodeTransaction(raw, (address) => this.getAccount(address)?.data ?? null);
  }

  private tokenBalances(keys: PublicKey[]): TokenBalance[] {
    const out: TokenBalance[] = [];
    keys.forEach((key, accountIndex) => {
      const account = this.getAccount(key.toBase58());
      if (!account || (account.owner !== TOKEN_PROGRAM && account.owner !== TOKEN_2022_PROGRAM)) return;
      const token = readTokenAccount(account.data);
      if (!token) return;
      const mint = this.getAccount(token.mint);
      const decimals = mint ? (readMint(mint.data)?.decimals ?? 0) : 0;
      out.push({
        accountIndex,
        mint: token.mint,
        owner: token.owner,
        programId: account.owner,
        uiTokenAmount: uiTokenAmount(token.amount, decimals),
      });
    });
    return out;
  }

  /** Simulate without committing. `sigVerify` off by default, as in the RPC API. */
  simulate(
    raw: Uint8Array,
    opts: { sigVerify?: boolean; replaceRecentBlockhash?: boolean } = {},
  ): SimulationResult {
    let bytes = raw;
    if (opts.replaceRecentBlockhash) {
      const tx = VersionedTransaction.deserialize(raw);
      tx.message.recentBlockhash = this.blockhash;
      bytes = tx.serialize();
    }
    const decoded = this.decode(bytes);
    if (
      !opts.replaceRecentBlockhash &&
      !decoded.isNonce &&
      !this.isBlockhashValid(decoded.tx.message.recentBlockhash)
    )
      return {
        err: 'BlockhashNotFound',
        logs: [],
        unitsConsumed: 0,
        returnData: null,
        postAccounts: new Map(),
      };
    this.svm.withSigverify(opts.sigVerify ?? false);
    try {
      const result = this.svm.simulateTransaction(decoded.kit);
      if (result instanceof FailedTransactionMetadata)
        return this.simulationOf(result.meta(), txErrorJson(result.err()), new Map());
      const post = new Map(
        result.postAccounts().map((a) => [a.address as string, { address: a.address, ...this.toIndexed(a) }]),
      );
      return this.simulationOf(result.meta(), null, post);
    } finally {
      this.svm.withSigverify(true);
    }
  }

  private simulationOf(
    meta: TransactionMetadata,
    err: RpcTxError | null,
    postAccounts: Map<string, AccountState>,
  ): SimulationResult {
    const returned = meta.returnData();
    const data = returned.data();
    return {
      err,
      logs: meta.logs(),
      unitsConsumed: Number(meta.computeUnitsConsumed()),
      returnData:
        data.length > 0
          ? {
              programId: bs58.encode(returned.programId()),
              data: [Buffer.from(data).toString('base64'), 'base64'],
            }
          : null,
      postAccounts,
    };
  }

  /**
   * Submit a transaction the way an RPC node does: with preflight, a failing simulation is an error and nothing
   * is committed; without it, executed-but-failed transactions land with `err` set and invalid ones are dropped.
   * Returns the signature, or throws an RpcError in the validator's error shape.
   */
  submit(raw: Uint8Array, opts: { skipPreflight?: boolean } = {}): string {
    const decoded = this.decode(raw);
    const { signature } = decoded;
    if (this.txs.has(signature)) {
      if (opts.skipPreflight) return signature;
      throw preflightError('AlreadyProcessed', []);
    }
    if (!decoded.isNonce && !this.isBlockhashValid(decoded.tx.message.recentBlockhash)) {
      if (opts.skipPreflight) return signature; // dropped, as a validator drops it: it never lands
      throw preflightError('BlockhashNotFound', []);
    }
    if (!opts.skipPreflight) {
      this.svm.withSigverify(true);
      const sim = this.svm.simulateTransaction(decoded.kit);
      if (sim instanceof FailedTransactionMetadata) {
        const err = txErrorJson(sim.err());
        if (err === 'SignatureFailure')
          throw new RpcError(-32003, 'Transaction signature verification failure');
        throw preflightError(err, sim.meta().logs(), Number(sim.meta().computeUnitsConsumed()));
      }
    }
    return this.execute(decoded);
  }

  private execute(decoded: Decoded): string {
    const { keys, signature } = decoded;
    const preBalances = keys.map((k) => Number(this.balance(k.toBase58())));
    const preTokenBalances = this.tokenBalances(keys);
    const result = this.svm.sendTransaction(decoded.kit);
    const failed = result instanceof FailedTransactionMetadata;
    const err = failed ? txErrorJson(result.err()) : null;
    if (err === 'SignatureFailure' || err === 'SanitizeFailure')
      throw new RpcError(-32003, 'Transaction signature verification failure');
    if (err !== null && !landsOnChain(err)) return signature; // never executed: dropped
    const meta = failed ? result.meta() : result;
    keys.forEach((key, i) => {
      if (!decoded.writable[i]) return;
      const address = key.toBase58();
      const account = this.getAccount(address);
      this.index.update(address, account);
    });
    const budget = computeBudgetOf(decoded);
    const writable = keys.filter((_, i) => decoded.writable[i]).map((k) => k.toBase58());
    const inSlot = this.slotPrices.get(this.slot) ?? [];
    inSlot.push({ price: budget.microLamports, writable });
    this.slotPrices.set(this.slot, inSlot);
    const record: TxRecord = {
      signature,
      slot: this.slot,
      blockTime: Math.floor(Date.now() / 1000),
      err,
      logs: meta.logs(),
      fee: feeOf(decoded.tx.message.header.numRequiredSignatures, budget),
      microLamports: budget.microLamports.toString(),
      computeUnits: Number(meta.computeUnitsConsumed()),
      raw: Buffer.from(decoded.tx.serialize()).toString('base64'),
      accountKeys: keys.map((k) => k.toBase58()),
      loaded: decoded.loaded,
      preBalances,
      postBalances: keys.map((k) => Number(this.balance(k.toBase58()))),
      preTokenBalances,
      postTokenBalances: this.tokenBalances(keys),
      innerInstructions: innerInstructionsOf(meta),
      memo: memoOf(decoded),
    };
    this.txCount++;
    this.version++;
    this.remember(record);
    this.emit('transaction', record);
    return signature;
  }

  /** Send lamports from the faucet: a real System transfer, so it has a signature, status and history. */
  airdrop(to: string, lamports: bigint): string {
    const tx = new Transaction({ feePayer: this.faucet.publicKey, recentBlockhash: this.blockhash }).add(
      SystemProgram.transfer({ fromPubkey: this.faucet.publicKey, toPubkey: new PublicKey(to), lamports }),
    );
    tx.sign(this.faucet);
    return this.submit(tx.serialize());
  }

  /** Fee for a base64 message (signatures and priority fee), or null when its blockhash is no longer valid. */
  feeForMessage(messageBase64: string): number | null {
    const message = VersionedMessage.deserialize(Buffer.from(messageBase64, 'base64'));
    if (!this.isBlockhashValid(message.recentBlockhash)) return null;
    const tx = new VersionedTransaction(message);
    const decoded = this.decode(tx.serialize());
    return feeOf(message.header.numRequiredSignatures, computeBudgetOf(decoded));
  }

  /**
   * getRecentPrioritizationFees: for each of the last 150 slots, the highest among `accounts` of the lowest
   * compute-unit price a transaction writing that account landed with in the slot, 0 when none wrote any of them;
   * without accounts, the lowest price of the slot's transactions (0 when none). A validator also raises every
   * account's value to the block's lowest price, which on a busy cluster is 0; here a slot may hold one
   * transaction only, which would make one test's bid everybody's, so the account values stand alone.
   */
  prioritizationFees(accounts: readonly string[]): Array<{ slot: number; prioritizationFee: number }> {
    const out: Array<{ slot: number; prioritizationFee: number }> = [];
    const lowest = (list: ReadonlyArray<{ price: bigint }>) =>
      list.reduce<bigint | undefined>(
        (min, tx) => (min === undefined || tx.price < min ? tx.price : min),
        undefined,
      );
    for (let slot = Math.max(1, this.slot - PRIORITIZATION_FEE_SLOTS + 1); slot <= this.slot; slot++) {
      const txs = this.slotPrices.get(slot) ?? [];
      let fee = accounts.length === 0 ? (lowest(txs) ?? 0n) : 0n;
      for (const account of accounts) {
        const forAccount = lowest(txs.filter((tx) => tx.writable.includes(account)));
        if (forAccount !== undefined && forAccount > fee) fee = forAccount;
      }
      out.push({ slot, prioritizationFee: Number(fee) });
    }
    return out;
  }
}
