// Airdrop allocation rule (pure). See docs/merkle.md "Allocation rule".
//
// Inputs: balances of the airdrop token per owner wallet (base58 → raw amount; duplicates, e.g. one entry per
// token account, are summed) and the pool P of game-coin raw units to distribute.
//
//   eligible  E = owners with balance b > 0, b ≥ minBalance, not in excludeOwners (and, with excludeOffCurve,
//               on the ed25519 curve: a PDA — a program's vault, a pool — has no key to claim with)
//   S         = Σ_{h∈E} b_h
//   base_h    = floor(P · b_h / S)
//   rem_h     = (P · b_h) mod S
//   R         = P − Σ base_h                      (0 ≤ R < |E|)
//   amount_h  = base_h + 1 for the R holders with the largest rem_h (ties: smaller claimant pubkey bytes first),
//               base_h otherwise
//
// Σ amount_h = P exactly (largest-remainder / Hamilton apportionment). Holders whose amount is 0 (balance
// too small to earn one raw unit) are dropped from the result, which is ascending by claimant pubkey bytes:
// the leaf order of the merkle tree.
import bs58 from 'bs58';
import { isOnCurve } from '../chain/index.js';
import { compare32, copy32, sortOrder, U64_MAX } from './merkle.js';

/** Share of a game coin's supply reserved for the airdrop to airdrop-token holders: 1000 bps = 10 %. */
export const AIRDROP_SHARE_BPS = 1000;
export const BPS_DENOMINATOR = 10_000;

/** Pool size in raw units: floor(totalSupply × shareBps / 10 000). */
export function airdropPoolSize(totalSupply: bigint, shareBps: number = AIRDROP_SHARE_BPS): bigint {
  if (!Number.isInteger(shareBps) || shareBps < 0 || shareBps > BPS_DENOMINATOR) {
    throw new RangeError(`shareBps must be an integer in 0..${BPS_DENOMINATOR}, got ${shareBps}`);
  }
  if (totalSupply < 0n) throw new RangeError('totalSupply must not be negative');
  return (totalSupply * BigInt(shareBps)) / BigInt(BPS_DENOMINATOR);
}

/** Minimum balance of `wholeTokens` whole tokens of a mint with `decimals` decimals, in raw units. */
export function minBalanceRaw(decimals: number, wholeTokens = 1n): bigint {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 255) throw new RangeError('bad decimals');
  return wholeTokens * 10n ** BigInt(decimals);
}

export interface AllocationOptions {
  /** Holders whose aggregated balance is below this (raw units) are excluded. Default 1 (any positive). */
  minBalance?: bigint;
  /** Owners never allocated, e.g. the pool, bonding-curve or vault accounts holding the airdrop token. */
  excludeOwners?: Iterable<string>;
  /** Leave out owners that are not ed25519 public keys: PDAs (program vaults, AMM pools, escrows). */
  excludeOffCurve?: boolean;
}

export interface AllocationResult {
  /** Number of holders with a positive allocation. */
  readonly count: number;
  /** count × 32 bytes: claimant pubkeys, ascending by bytes (leaf order). */
  readonly claimants: Buffer;
  /** Base58 owner addresses in the same order. */
  readonly owners: readonly string[];
  /** Aggregated airdrop-token balances in the same order. */
  readonly balances: BigUint64Array;
  /** Allocated game-coin raw amounts in the same order; every entry > 0. */
  readonly amounts: BigUint64Array;
  readonly pool: bigint;
  /** Σ amounts: equals pool whenever at least one holder is eligible, else 0. */
  readonly totalAllocation: bigint;
  /** S: Σ balances of the eligible holders. */
  readonly eligibleBalance: bigint;
  readonly excluded: {
    readonly zeroBalance: number;
    readonly belowMinimum: number;
    readonly excludedOwner: number;
    /** Owners off the ed25519 curve (with excludeOffCurve). */
    readonly offCurve: number;
    readonly zeroAllocation: number;
  };
}

/** Sums balances per owner (e.g. several token accounts, classic SPL and Token-2022, of one wallet). */
export function aggregateBalances(entries: Iterable<readonly [string, bigint]>): Map<string, bigint> {
  const totals = new Map<string, bigint>();
  for (const [owner, amount] of entries) {
    if (amount < 0n) throw new RangeError(`negative balance for ${owner}`);
    totals.set(owner, (totals.get(owner) ?? 0n) + amount);
  }
  return totals;
}

/**
 * Decodes a base58 address that stands for exactly 32 bytes into out[offset..offset+32). Returns false, leaving
 * out untouched, for anything else.
 */
export function decodeAddress(address: string, out: Uint8Array, offset = 0): boolean {
  const bytes = bs58.decodeUnsafe(address);
  if (bytes?.length !== 32) return false;
  out.set(bytes, offset);
  return true;
}

/** Base58 of the 32 bytes at bytes[offset..offset+32). */
export function encodeAddress(bytes: Uint8Array, offset = 0): string {
  return bs58.encode(bytes.subarray(offset, offset + 32));
}

function decodeOwner(owner: string, out: Uint8Array, offset: number): void {
  if (!decodeAddress(owner, out, offset))
    throw new RangeError(`owner is not a base58 32-byte address: ${owner}`);
}

type Excluded = {
  zeroBalance: number;
  belowMinimum: number;
  excludedOwner: number;
  offCurve: number;
  zeroAllocation: number;
};

/** Holders as columns: count × 32-byte owners strictly ascending by bytes, balances in the same order. */
export interface HolderColumns {
  readonly count: number;
  readonly owners: Uint8Array;
  readonly balances: BigUint64Array;
}

/**
 * Step 4: hands out `leftover` (< n) units, +1 each, to the largest remainders. The leftover-th largest
 * remainder is the threshold t (found with one native sort of the u64 remainders): every holder above t gets
 * a unit, then holders exactly at t in ascending claimant order until none is left.
 */
function distributeLeftover(amounts: BigUint64Array, remainders: BigUint64Array, leftover: bigint): void {
  const n = amounts.length;
  if (leftover <= 0n) return;
  const threshold = remainders.slice().sort()[n - Number(leftover)] as bigint;
  let left = leftover;
  for (let i = 0; i < n; i++) {
    if ((remainders[i] as bigint) > threshold) {
      amounts[i] = (amounts[i] as bigint) + 1n;
      left--;
    }
  }
  for (let i = 0; i < n && left > 0n; i++) {
    if (remainders[i] === threshold) {
      amounts[i] = (amounts[i] as bigint) + 1n;
      left--;
    }
  }
}

/** Why holder i is not eligible, or undefined when it is. */
function exclusionOf(
  holders: HolderColumns,
  i: number,
  minBalance: bigint,
  excludedKeys: readonly Uint8Array[],
  offCurve: boolean,
): keyof Excluded | undefined {
  const balance = holders.balances[i] as bigint;
  if (balance === 0n) return 'zeroBalance';
  if (excludedKeys.some((key) => compare32(key, 0, holders.owners, i * 32) === 0)) return 'excludedOwner';
  if (balance < minBalance) return 'belowMinimum';
  if (offCurve && !isOnCurve(holders.owners, i * 32)) return 'offCurve';
  return undefined;
}

/** Step 1: the eligible holders' owners and balances (order kept) and S. */
function selectEligible(holders: HolderColumns, options: AllocationOptions, excluded: Excluded) {
  const minBalance = options.minBalance ?? 1n;
  const keys: Uint8Array[] = [];
  for (const owner of options.excludeOwners ?? []) {
    const key = new Uint8Array(32);
    if (decodeAddress(owner, key)) keys.push(key);
  }
  const offCurve = options.excludeOffCurve ?? false;
  const eligible = new Uint8Array(holders.count);
  let n = 0;
  let eligibleBalance = 0n;
  for (let i = 0; i < holders.count; i++) {
    const reason = exclusionOf(holders, i, minBalance, keys, offCurve);
    if (reason) {
      excluded[reason]++;
      continue;
    }
    eligible[i] = 1;
    eligibleBalance += holders.balances[i] as bigint;
    n++;
  }
  if (eligibleBalance > U64_MAX)
    throw new RangeError('total eligible balance exceeds a u64 (one mint cannot)');
  const claimants = Buffer.allocUnsafe(n * 32);
  const held = new BigUint64Array(n);
  for (let i = 0, k = 0; i < holders.count; i++) {
    if (!eligible[i]) continue;
    copy32(holders.owners, i * 32, claimants, k * 32);
    held[k] = holders.balances[i] as bigint;
    k++;
  }
  return { n, claimants, held, eligibleBalance };
}

/**
 * Pro-rata allocation of `pool` among holders given as columns in leaf order (the chain reader's TokenHolders):
 * no per-holder string or object, so a million holders stay within tens of MB.
 */
export function allocateHolders(
  holders: HolderColumns,
  pool: bigint,
  options: AllocationOptions = {},
): AllocationResult {
  if (pool < 0n || pool > U64_MAX) throw new RangeError(`pool must fit in a u64, got ${pool}`);
  if (holders.owners.length !== holders.count * 32 || holders.balances.length !== holders.count)
    throw new RangeError('holder columns do not match their count');
  const excluded: Excluded = {
    zeroBalance: 0,
    belowMinimum: 0,
    excludedOwner: 0,
    offCurve: 0,
    zeroAllocation: 0,
  };
  const { n, claimants, held, eligibleBalance } = selectEligible(holders, options, excluded);

  // 3. Floors and remainders, in leaf order.
  const amounts = new BigUint64Array(n);
  const remainders = new BigUint64Array(n);
  let floorSum = 0n;
  for (let i = 0; i < n; i++) {
    const scaled = pool * (held[i] as bigint);
    const base = scaled / eligibleBalance;
    amounts[i] = base;
    remainders[i] = scaled - base * eligibleBalance;
    floorSum += base;
  }

  // 4. Largest remainders.
  distributeLeftover(amounts, remainders, n === 0 ? 0n : pool - floorSum);

  // 5. Drop zero allocations (compact in place, order kept).
  let kept = 0;
  let totalAllocation = 0n;
  for (let i = 0; i < n; i++) {
    const amount = amounts[i] as bigint;
    if (amount === 0n) {
      excluded.zeroAllocation++;
      continue;
    }
    if (kept !== i) copy32(claimants, i * 32, claimants, kept * 32);
    held[kept] = held[i] as bigint;
    amounts[kept] = amount;
    totalAllocation += amount;
    kept++;
  }
  const keptClaimants = claimants.subarray(0, kept * 32);
  let owners: string[] | undefined;
  return {
    count: kept,
    claimants: keptClaimants,
    // Base58 only when asked for (tests, small sets): a million encodings cost seconds and ~100 MB.
    get owners() {
      owners ??= Array.from({ length: kept }, (_, i) => encodeAddress(keptClaimants, i * 32));
      return owners;
    },
    balances: held.subarray(0, kept),
    amounts: amounts.subarray(0, kept),
    pool,
    totalAllocation,
    eligibleBalance,
    excluded,
  };
}

/**
 * Pro-rata allocation of `pool` among holders (formula at the top of this file). `balances` may contain an
 * owner more than once; its amounts are summed. Pure and deterministic: the same inputs give the same
 * output whatever their order.
 */
export function computeAllocations(
  balances: Iterable<readonly [string, bigint]>,
  pool: bigint,
  options: AllocationOptions = {},
): AllocationResult {
  const totals = balances instanceof Map ? (balances as Map<string, bigint>) : aggregateBalances(balances);
  const count = totals.size;
  const keys = Buffer.allocUnsafe(count * 32);
  const values = new BigUint64Array(count);
  let i = 0;
  for (const [owner, balance] of totals) {
    if (balance < 0n) throw new RangeError(`negative balance for ${owner}`);
    if (balance > U64_MAX) throw new RangeError(`balance of ${owner} exceeds a u64`);
    decodeOwner(owner, keys, i * 32);
    values[i] = balance;
    i++;
  }
  // 2. Leaf order: ascending claimant bytes.
  const order = sortOrder(keys, count);
  const owners = Buffer.allocUnsafe(count * 32);
  const sorted = new BigUint64Array(count);
  for (let k = 0; k < count; k++) {
    const from = order[k] as number;
    copy32(keys, from * 32, owners, k * 32);
    sorted[k] = values[from] as bigint;
  }
  return allocateHolders({ count, owners, balances: sorted }, pool, options);
}

/** The result as plain objects (small sets, tests, JSON). */
export function allocationList(
  result: AllocationResult,
): Array<{ owner: string; balance: bigint; amount: bigint }> {
  return result.owners.map((owner, i) => ({
    owner,
    balance: result.balances[i] as bigint,
    amount: result.amounts[i] as bigint,
  }));
}
