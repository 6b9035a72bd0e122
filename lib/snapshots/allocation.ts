// Airdrop allocation rule (pure). See docs/merkle.md "Allocation rule".
//
// Inputs: balances of the airdrop token per owner wallet (base58 → raw amount; duplicates, e.g. one entry per
// token account, are summed) and the pool P of game-coin raw units to distribute.
//
//   eligible  E = owners with balance b > 0, b ≥ minBalance, not in excludeOwners
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
import { copy32, sortOrder, U64_MAX } from './merkle.js';

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

type Excluded = { zeroBalance: number; belowMinimum: number; excludedOwner: number; zeroAllocation: number };

/** Step 1: eligible owners, their balances and S. */
function selectEligible(
  totals: Map<string, bigint>,
  minBalance: bigint,
  excludedOwners: ReadonlySet<string>,
  excluded: Excluded,
): { eligible: string[]; balances: bigint[]; eligibleBalance: bigint } {
  const eligible: string[] = [];
  const balances: bigint[] = [];
  let eligibleBalance = 0n;
  for (const [owner, balance] of totals) {
    if (balance < 0n) throw new RangeError(`negative balance for ${owner}`);
    if (balance === 0n) excluded.zeroBalance++;
    else if (excludedOwners.size > 0 && excludedOwners.has(owner)) excluded.excludedOwner++;
    else if (balance < minBalance) excluded.belowMinimum++;
    else {
      if (balance > U64_MAX) throw new RangeError(`balance of ${owner} exceeds a u64`);
      eligible.push(owner);
      balances.push(balance);
      eligibleBalance += balance;
    }
  }
  if (eligibleBalance > U64_MAX)
    throw new RangeError('total eligible balance exceeds a u64 (one mint cannot)');
  return { eligible, balances, eligibleBalance };
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
  if (pool < 0n || pool > U64_MAX) throw new RangeError(`pool must fit in a u64, got ${pool}`);
  const totals = balances instanceof Map ? (balances as Map<string, bigint>) : aggregateBalances(balances);
  const excluded: Excluded = { zeroBalance: 0, belowMinimum: 0, excludedOwner: 0, zeroAllocation: 0 };
  const {
    eligible,
    balances: eligibleBalances,
    eligibleBalance,
  } = selectEligible(totals, options.minBalance ?? 1n, new Set(options.excludeOwners ?? []), excluded);

  // 2. Leaf order: ascending claimant bytes.
  const n = eligible.length;
  const unsorted = Buffer.allocUnsafe(n * 32);
  eligible.forEach((owner, i) => {
    decodeOwner(owner, unsorted, i * 32);
  });
  const order = sortOrder(unsorted, n);

  // 3. Floors and remainders, in leaf order.
  const owners: string[] = new Array(n);
  const claimants = Buffer.allocUnsafe(n * 32);
  const held = new BigUint64Array(n);
  const amounts = new BigUint64Array(n);
  const remainders = new BigUint64Array(n);
  let floorSum = 0n;
  for (let i = 0; i < n; i++) {
    const from = order[i] as number;
    const balance = eligibleBalances[from] as bigint;
    owners[i] = eligible[from] as string;
    copy32(unsorted, from * 32, claimants, i * 32);
    held[i] = balance;
    const scaled = pool * balance;
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
    owners[kept] = owners[i] as string;
    if (kept !== i) copy32(claimants, i * 32, claimants, kept * 32);
    held[kept] = held[i] as bigint;
    amounts[kept] = amount;
    totalAllocation += amount;
    kept++;
  }
  owners.length = kept;
  return {
    count: kept,
    claimants: claimants.subarray(0, kept * 32),
    owners,
    balances: held.subarray(0, kept),
    amounts: amounts.subarray(0, kept),
    pool,
    totalAllocation,
    eligibleBalance,
    excluded,
  };
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
