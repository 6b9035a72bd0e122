// Compute budget of the transactions the platform sends: a compute-unit limit from a simulation, plus a
// margin, and a priority fee (compute-unit price) from the node's recent prioritization fees for the accounts the
// transaction writes, capped. The instructions are the official ComputeBudget program client's.
import {
  AccountRole,
  type Address,
  getCompiledTransactionMessageDecoder,
  type Instruction,
  type Transaction,
} from '@solana/kit';
import {
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  ComputeBudgetInstruction,
  getSetComputeUnitLimitInstruction,
  getSetComputeUnitLimitInstructionDataDecoder,
  getSetComputeUnitPriceInstruction,
  getSetComputeUnitPriceInstructionDataDecoder,
  identifyComputeBudgetInstruction,
  MAX_COMPUTE_UNIT_LIMIT,
} from '@solana-program/compute-budget';

/** A transaction plan (chain.ts's TransactionPlan, spelled here so the two modules don't import each other). */
interface TransactionPlan {
  feePayer: Address;
  instructions: readonly Instruction[];
}

export { COMPUTE_BUDGET_PROGRAM_ADDRESS, MAX_COMPUTE_UNIT_LIMIT };

/** The base fee of every signature (lamports), fixed by the protocol. */
export const LAMPORTS_PER_SIGNATURE = 5_000n;
const MICRO_LAMPORTS_PER_LAMPORT = 1_000_000n;
/** What the runtime assumes per instruction when a transaction sets no limit. */
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000;

/**
 * Margin over the simulated units: 10 %, at least 1 000 units. A platform transaction's path is fixed by the
 * accounts it names and the state it finds, and between the simulation and landing that state can only move
 * the cheap way (an idempotent token account already created by then); the margin covers what can still differ
 * (a program's bump search or log lengths under another runtime version). Running out fails the transaction
 * with its fee charged, while the priority fee is charged on the limit, not on what was used: 10 % of a priority
 * fee is the price of that insurance.
 */
export const unitLimitFor = (consumed: number): number =>
  Math.min(MAX_COMPUTE_UNIT_LIMIT, Math.max(consumed + 1_000, Math.ceil(consumed * 1.1)));

/**
 * Percentile of the recent per-slot prioritization fees a transaction bids: the 90th. Each slot's value is the
 * lowest price that landed in that slot writing one of these accounts (on mainnet also raised to the block's
 * lowest), a floor, not what landing took: in congestion most transactions of a slot paid well above its minimum,
 * and a bid at a typical minimum (the 50th or 75th percentile) ties with the cheapest that got in and loses
 * to the rest. The 90th of the last 150 slots (about a minute) follows the floor of the busy slots within a slot
 * or two, and stays clear of the maximum, one bidder's spike. Providers with a fee-estimate API (PRIORITY_FEE_SOURCE
 * `helius`) see every landed price, not the minimum: their `High` level (75th percentile of what landed) is bid
 * instead. The setting PRIORITY_FEE_MAX_MICROLAMPORTS caps either.
 */
export const PRIORITY_PERCENTILE = 90;

/** The price to bid (micro-lamports per unit) from recent per-slot fees: their percentile, never above `cap`. */
export const priorityPrice = (
  recent: readonly bigint[],
  cap: bigint,
  percentile: number = PRIORITY_PERCENTILE,
): bigint => {
  if (recent.length === 0 || cap <= 0n) return 0n;
  const sorted = [...recent].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const at = Math.min(sorted.length - 1, Math.ceil((percentile / 100) * sorted.length) - 1);
  const price = sorted[Math.max(0, at)] ?? 0n;
  return price < cap ? price : cap;
};

/** The lamports a transaction pays: per signature, plus price × limit in micro-lamports, rounded up (as charged). */
export const feeOf = (budget: { signatures: number; units: number; microLamports: bigint }): bigint =>
  BigInt(budget.signatures) * LAMPORTS_PER_SIGNATURE +
  (budget.microLamports * BigInt(budget.units) + MICRO_LAMPORTS_PER_LAMPORT - 1n) /
    MICRO_LAMPORTS_PER_LAMPORT;

/** A transaction's compute budget and what it costs its fee payer. */
export interface ComputeBudget {
  /** The compute-unit limit. */
  units: number;
  /** The compute-unit price, micro-lamports per unit. */
  microLamports: bigint;
  /** Signatures it carries (each pays the base fee). */
  signatures: number;
  /** Lamports the fee payer pays when it lands (`feeOf`). */
  fee: bigint;
}

/**
 * The highest price that keeps the fee within `maxFee` at this limit (the cap a caller reserved for the fee);
 * null when even price 0 exceeds it.
 */
export const priceWithin = (maxFee: bigint, signatures: number, units: number): bigint | null => {
  const room = maxFee - BigInt(signatures) * LAMPORTS_PER_SIGNATURE;
  if (room < 0n) return null;
  return (room * MICRO_LAMPORTS_PER_LAMPORT) / BigInt(units);
};

/** Whether an instruction belongs to the ComputeBudget program. */
const isBudgetInstruction = (ix: Instruction) => ix.programAddress === COMPUTE_BUDGET_PROGRAM_ADDRESS;

/** The plan with these limit and price instructions first (any it carried replaced). */
export const withComputeBudget = (
  plan: TransactionPlan,
  budget: Pick<ComputeBudget, 'units' | 'microLamports'>,
): TransactionPlan => ({
  feePayer: plan.feePayer,
  instructions: [
    getSetComputeUnitLimitInstruction({ units: budget.units }),
    getSetComputeUnitPriceInstruction({ microLamports: budget.microLamports }),
    ...plan.instructions.filter((ix) => !isBudgetInstruction(ix)),
  ],
});

/** Distinct signers of a plan (the fee payer included): each signature pays the base fee. */
export const signersOf = (plan: TransactionPlan): number => {
  const signers = new Set<string>([plan.feePayer]);
  for (const ix of plan.instructions)
    for (const meta of ix.accounts ?? [])
      if (meta.role === AccountRole.READONLY_SIGNER || meta.role === AccountRole.WRITABLE_SIGNER)
        signers.add(meta.address);
  return signers.size;
};

/** Accounts a plan writes (the fee payer included): the ones whose recent fees set its price. */
export const writableAccounts = (plan: TransactionPlan): Address[] => {
  const writable = new Set<Address>([plan.feePayer]);
  for (const ix of plan.instructions)
    for (const meta of ix.accounts ?? [])
      if (meta.role === AccountRole.WRITABLE || meta.role === AccountRole.WRITABLE_SIGNER)
        writable.add(meta.address);
  return [...writable];
};

const limitDecoder = getSetComputeUnitLimitInstructionDataDecoder();
const priceDecoder = getSetComputeUnitPriceInstructionDataDecoder();

/**
 * The compute budget a signed (or partly signed) transaction carries and the fee it pays, read from its message
 * the way the runtime reads it; `units` is null when it sets no limit (the runtime's default then applies).
 */
export const budgetOfTransaction = (tx: Transaction): ComputeBudget & { limitSet: boolean } => {
  const message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
  // The platform builds legacy messages (v0 has the same shape); v1 keeps its budget in the message config.
  if (!('instructions' in message))
    throw new Error(`Unsupported transaction message version ${message.version}`);
  let units: number | undefined;
  let microLamports = 0n;
  let others = 0;
  for (const ix of message.instructions) {
    const program = message.staticAccounts[ix.programAddressIndex];
    const data = ix.data ?? new Uint8Array();
    if (program !== COMPUTE_BUDGET_PROGRAM_ADDRESS) {
      others++;
      continue;
    }
    const kind = identifyComputeBudgetInstruction(data);
    if (kind === ComputeBudgetInstruction.SetComputeUnitLimit) units = limitDecoder.decode(data).units;
    if (kind === ComputeBudgetInstruction.SetComputeUnitPrice)
      microLamports = BigInt(priceDecoder.decode(data).microLamports);
  }
  const limit = units ?? Math.min(MAX_COMPUTE_UNIT_LIMIT, others * DEFAULT_UNITS_PER_INSTRUCTION);
  const signatures = message.header.numSignerAccounts;
  return {
    units: limit,
    microLamports,
    signatures,
    fee: feeOf({ signatures, units: limit, microLamports }),
    limitSet: units !== undefined,
  };
};

/** Whether a plan already carries a compute-unit limit (then it is sent as it is). */
export const hasComputeBudget = (plan: TransactionPlan): boolean =>
  plan.instructions.some(isBudgetInstruction);
