// Exercise-claim use cases: the claim transaction (participant pays, the custodial distribution vault co-signs)
// and the claim status. A claim pays the wallet's whole unclaimed allocation of the coin (airdrop released to it
// by the snapshots + emission by settled days). Each claim is the platform's record, written before the vault's
// signature leaves the platform (claims/ledger.ts).
//
// build-transactions is public: anybody may build any wallet's claim, so what a build records must never hold the
// wallet's claim hostage. Every transaction takes the platform's own latest blockhash (a caller's could be one the
// chain no longer knows: a claim that can never land, answered back to the participant for its whole lifetime). A
// pending claim a build recorded is replaced by the next build or submit: the same number, amount and receipt,
// signed again with a fresh blockhash and that caller's referrer, so that whoever asks last gets a transaction of
// its own, and only one of all those transactions can land (they use the same receipt). The claim the participant's
// own submit recorded is answered back until it lands or expires: its referrer is the participant's.
import type { KeyPairSigner } from '@solana/kit';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import {
  address,
  type Chain,
  type ChainReader,
  externalSigner,
  memoInstruction,
  RECEIPT_SPACE,
  signPlan,
  type TransactionPlan,
  useReceiptInstructions,
  wireTransaction,
  withComputeBudget,
} from '../../chain/index.js';
import { AppError, errors } from '../../core/errors.js';
import { countMetric } from '../../core/metrics.js';
import type { ClaimRecord } from '../repository.js';
import type { ReadDeps } from '../service.js';
import {
  CLAIM_MEMO,
  claimableAmount,
  claimReceiptAddress,
  claimReceiptSeed,
  type Ledger,
  type LedgerDeps,
  readLedger,
  walletAllocation,
} from './ledger.js';

export interface ClaimDeps extends ReadDeps, LedgerDeps {
  chain: LedgerDeps['chain'] &
    Pick<ChainReader, 'getMint' | 'getMinimumBalanceForRentExemption' | 'getLatestBlockhash'> &
    Pick<Chain, 'estimateBudget'>;
  loadVault(coinMint: string): Promise<KeyPairSigner | undefined>;
  /** Records a new claim (conditional on its number being free, or on replacing the expired attempt read). */
  recordNewClaim(claim: ClaimRecord, replaces?: ClaimRecord): Promise<boolean>;
}

/**
 * The compute-unit limit of a claim whose simulation fails at build time (a wallet funded only later): above
 * what a claim that creates the participant's Token-2022 account consumes (~40 000 units), with room to spare.
 */
export const CLAIM_FALLBACK_UNITS = 80_000;

const requireVault = async (deps: ClaimDeps, coinMint: string) => {
  const vault = await deps.loadVault(coinMint);
  if (!vault) throw errors.notFound(`Distribution vault of ${coinMint}`);
  return vault;
};

/** The claim's transaction: the receipt used once, the participant's token account, the transfer, a memo. */
const claimPlan = async (args: {
  coinMint: string;
  participant: string;
  vault: KeyPairSigner;
  claimNumber: number;
  receipt: string;
  receiptLamports: bigint;
  amount: bigint;
  coin: { programId: string; decimals: number };
  memo: string;
}): Promise<TransactionPlan> => {
  const mint = address(args.coinMint);
  const tokenProgram = address(args.coin.programId);
  const payer = externalSigner(args.participant);
  const [[vaultAta], [participantAta]] = await Promise.all([
    findAssociatedTokenPda({ mint, owner: args.vault.address, tokenProgram }),
    findAssociatedTokenPda({ mint, owner: payer.address, tokenProgram }),
  ]);
  return {
    feePayer: payer.address,
    instructions: [
      ...useReceiptInstructions({
        payer,
        base: args.vault,
        seed: claimReceiptSeed(args.coinMint, args.participant, args.claimNumber),
        receipt: address(args.receipt),
        rentLamports: args.receiptLamports,
      }),
      getCreateAssociatedTokenIdempotentInstruction({
        payer,
        ata: participantAta,
        owner: payer.address,
        mint,
        tokenProgram,
      }),
      getTransferCheckedInstruction(
        {
          source: vaultAta,
          mint,
          destination: participantAta,
          authority: args.vault,
          amount: args.amount,
          decimals: args.coin.decimals,
        },
        { programAddress: tokenProgram },
      ),
      memoInstruction(args.memo),
    ],
  };
};

/** What the participant pays besides the fee: the receipt's rent, and the token account it may create. */
export interface ClaimCosts {
  receiptLamports: bigint;
  tokenAccount: string;
  tokenProgram: string;
}

/**
 * The claim a build answers: `created` when this call recorded it (a new claim, or `replaced`: another attempt of
 * the pending one), false when it is the claim the participant's own submit recorded, answered back.
 */
export interface Reserved {
  claim: ClaimRecord;
  created: boolean;
  replaced: boolean;
}

/** Who asks: the public build (anyone, for any wallet), or the participant's own authenticated submit. */
export type ClaimOrigin = ClaimRecord['origin'];

/** What a claim pays and why: fixed when its number is first built, kept by every attempt while one can land. */
type ClaimTerms = Pick<
  ClaimRecord,
  | 'claimNumber'
  | 'amount'
  | 'allocated'
  | 'airdropAllocation'
  | 'emissionAllocation'
  | 'claimedBefore'
  | 'index'
  | 'merkleRoot'
  | 'snapshotVersion'
>;

/** The terms of a pending claim, which another attempt of it keeps. */
const termsOf = (claim: ClaimRecord): ClaimTerms => ({
  claimNumber: claim.claimNumber,
  amount: claim.amount,
  allocated: claim.allocated,
  airdropAllocation: claim.airdropAllocation,
  emissionAllocation: claim.emissionAllocation,
  claimedBefore: claim.claimedBefore,
  index: claim.index,
  merkleRoot: claim.merkleRoot,
  snapshotVersion: claim.snapshotVersion,
});

/** The terms of a new claim: the whole unclaimed allocation (404 without allocation, 409 when all is claimed). */
const newTerms = (
  coinMint: string,
  participant: string,
  allocation: Awaited<ReturnType<typeof walletAllocation>>,
  ledger: Ledger,
): ClaimTerms => {
  if (allocation.total === 0n)
    throw new AppError('NOT_FOUND', `${participant} has no allocation of ${coinMint} (airdrop or emission)`);
  const amount = claimableAmount(allocation.total, ledger.claimed);
  if (amount === 0n)
    throw new AppError(
      'CONFLICT',
      `${participant} has already claimed its whole allocation of ${coinMint} (${ledger.claimed} base units); ` +
        'later snapshots and settled emission days add to it',
    );
  const { airdrop, summary } = allocation;
  return {
    claimNumber: ledger.next,
    amount: amount.toString(),
    allocated: allocation.total.toString(),
    airdropAllocation: allocation.airdropAmount.toString(),
    emissionAllocation: allocation.emissionAmount.toString(),
    claimedBefore: ledger.claimed.toString(),
    index: airdrop?.index ?? null,
    merkleRoot: airdrop ? airdrop.summary.merkleRoot : null,
    snapshotVersion: summary?.version ?? null,
  };
};

/** Whether a pending claim is the participant's own: recorded by its submit, or already sent by the platform. */
const participantsOwn = (claim: ClaimRecord) => claim.origin === 'submit' || claim.signature !== null;

/**
 * The claim this caller gets, recorded before it is returned: a new one for the wallet's whole unclaimed
 * allocation (404 without allocation, 409 when all of it is claimed); or, while one is pending, another attempt of
 * it (same number, amount and receipt: only one of them can land) signed for this caller, unless the pending one is
 * the participant's own submit's, which is answered back. Always with the platform's latest blockhash. Of
 * concurrent builds each records in turn (conditional writes) or reads again.
 */
export const reserveClaim = async (
  input: { gtokenAddress: string; participant: string; referrer?: string | undefined },
  origin: ClaimOrigin,
  deps: ClaimDeps,
  /** A last check before a claim is recorded, given the fee it costs (a refusal leaves nothing behind). */
  beforeRecord?: (fee: bigint) => Promise<void>,
): Promise<Reserved> => {
  const { gtokenAddress: coinMint, participant } = input;
  for (let round = 0; round < 3; round++) {
    const [allocation, ledger] = await Promise.all([
      walletAllocation(coinMint, participant, deps),
      readLedger(coinMint, participant, deps),
    ]);
    const { pending } = ledger;
    if (pending && participantsOwn(pending)) return { claim: pending, created: false, replaced: false };
    // The terms come from the platform's records: the pending attempt's (another attempt of it pays exactly what
    // that one does, whichever lands), else the allocation read now.
    const terms = pending ? termsOf(pending) : newTerms(coinMint, participant, allocation, ledger);
    const { claimNumber } = terms;
    const amount = BigInt(terms.amount);
    const vault = await requireVault(deps, coinMint);
    const receipt = await claimReceiptAddress(vault.address, coinMint, participant, claimNumber);
    if (pending && pending.receiptAddress !== receipt)
      throw new Error(`Claim ${claimNumber} of ${participant} was recorded with another receipt`);
    const [coin, receiptLamports] = await Promise.all([
      deps.chain.getMint(coinMint),
      deps.chain.getMinimumBalanceForRentExemption(RECEIPT_SPACE),
    ]);
    if (!coin) throw errors.notFound(`Game coin ${coinMint}`);
    const memo = [
      CLAIM_MEMO,
      `mint=${coinMint}`,
      `claim=${claimNumber}`,
      `amount=${amount}`,
      ...(input.referrer ? [`referrer=${input.referrer}`] : []),
    ].join(' ');
    const plan = await claimPlan({
      coinMint,
      participant,
      vault,
      claimNumber,
      receipt,
      receiptLamports,
      amount,
      coin,
      memo,
    });
    // The participant pays the fee: a limit from a simulation and the going priority fee, capped by the setting.
    const budget = await deps.chain.estimateBudget(plan, { fallbackUnits: CLAIM_FALLBACK_UNITS });
    await beforeRecord?.(budget.fee);
    // Never a caller's blockhash: one the chain no longer knows makes a claim that cannot land.
    const life = await deps.chain.getLatestBlockhash();
    // Signed in memory; the signature leaves the platform only once the claim is recorded below.
    const tx = await signPlan(withComputeBudget(plan, budget), life);
    const replaces = pending ?? ledger.replaces;
    const claim: ClaimRecord = {
      coinMint,
      wallet: participant,
      ...terms,
      attempt: (replaces?.attempt ?? 0) + 1,
      status: 'pending',
      origin,
      receiptAddress: receipt,
      transaction: wireTransaction(tx),
      blockhash: life.blockhash,
      // A replaced attempt can land until its own last height: the record is not expired before every one is.
      lastValidBlockHeight: Math.max(life.lastValidBlockHeight, pending?.lastValidBlockHeight ?? 0),
      signature: null,
      createdAt: deps.now().toISOString(),
      claimedAt: null,
    };
    if (await deps.recordNewClaim(claim, replaces)) return { claim, created: true, replaced: !!pending };
    // Another build or submit wrote first: read again.
  }
  throw new AppError('CONFLICT', `Claims of ${participant} changed while building; build again`);
};

/** The fields build-transactions and submit answer about a claim. */
export const claimView = (claim: ClaimRecord) => ({
  ...termsOf(claim),
  receiptAddress: claim.receiptAddress,
});

/**
 * POST /token-launcher/exercise-claim/build-transactions: one transaction paying the whole unclaimed allocation
 * (while a build's claim is pending: another attempt of it, for this caller), or the claim the participant's own
 * submit sent (`pending: true`) while that one can still land. The caller's `blockhash` is ignored.
 */
export const buildClaimTransactions = async (
  input: { gtokenAddress: string; participant: string; referrer?: string; blockhash?: string },
  deps: ClaimDeps,
) => {
  const { gtokenAddress, participant, referrer } = input;
  const { claim, created, replaced } = await reserveClaim(
    { gtokenAddress, participant, referrer },
    'build',
    deps,
  );
  // Claims, not attempts: a replacement pays the claim already counted.
  if (created && !replaced) countMetric('ClaimsBuilt');
  return {
    transactions: [claim.transaction],
    ...claimView(claim),
    blockhash: claim.blockhash,
    lastValidBlockHeight: claim.lastValidBlockHeight,
    pending: !created,
  };
};

/** A coin's emission schedule as the status reports it (from the game's coin summary and the emission state). */
export interface EmissionSchedule {
  status: string;
  emissionDays: number;
  emissionStartAt: string | null;
  lastSettledDay: string | null;
}

/** What the claim status reads: no vault key, nothing that signs. */
export type ClaimStatusDeps = ReadDeps &
  LedgerDeps & {
    /** The distribution vault's address, its key left sealed (undefined when the coin was not launched here). */
    findVaultAddress(coinMint: string): Promise<string | undefined>;
    /** The coin's emission schedule (undefined for a mint that is no game coin). */
    findEmissionSchedule(coinMint: string): Promise<EmissionSchedule | undefined>;
  };

const DAY_MS = 24 * 60 * 60 * 1000;

/** The next emission day to settle and when it can (the end of that UTC day; the settlement delay follows). */
export const nextSettlement = (schedule: EmissionSchedule | undefined) => {
  if (!schedule?.emissionStartAt || schedule.status !== 'active') return null;
  const first = Date.parse(`${schedule.emissionStartAt.slice(0, 10)}T00:00:00.000Z`);
  const last = first + (schedule.emissionDays - 1) * DAY_MS;
  const after = schedule.lastSettledDay
    ? Date.parse(`${schedule.lastSettledDay}T00:00:00.000Z`) + DAY_MS
    : first;
  const day = Math.min(Math.max(after, first), last);
  return {
    day: new Date(day).toISOString().slice(0, 10),
    notBefore: new Date(day + DAY_MS).toISOString(),
    lastDay: new Date(last).toISOString().slice(0, 10),
  };
};

/** GET /token-launcher/exercise-claim/{gtokenAddress}/status/{wallet}. */
export const getClaimStatus = async (coinMint: string, wallet: string, deps: ClaimStatusDeps) => {
  const [allocation, vault, schedule, ledger] = await Promise.all([
    walletAllocation(coinMint, wallet, deps),
    deps.findVaultAddress(coinMint),
    deps.findEmissionSchedule(coinMint),
    readLedger(coinMint, wallet, deps),
  ]);
  const { claimed, pending } = ledger;
  const claimable = vault && !pending ? claimableAmount(allocation.total, claimed) : 0n;
  const last = ledger.landed.at(-1);
  const state: 'claimable' | 'pending' | 'claimed' | 'not_eligible' = pending
    ? 'pending'
    : claimable > 0n
      ? 'claimable'
      : last
        ? 'claimed'
        : 'not_eligible';
  const amounts = { pending: pending?.amount, claimable: claimable.toString(), claimed: claimed.toString() };
  return {
    gtokenAddress: coinMint,
    wallet,
    canClaim: state === 'claimable' || state === 'pending',
    state,
    amount: state === 'not_eligible' ? null : (amounts[state] ?? null),
    allocated: allocation.total.toString(),
    airdropAllocation: allocation.airdropAmount.toString(),
    emissionAllocation: allocation.emissionAmount.toString(),
    claimed: claimed.toString(),
    claimable: claimable.toString(),
    pending: pending
      ? {
          claimNumber: pending.claimNumber,
          amount: pending.amount,
          lastValidBlockHeight: pending.lastValidBlockHeight,
          signature: pending.signature,
        }
      : null,
    claims: ledger.landed.length,
    claimedAt: last?.claimedAt ?? null,
    signature: last?.signature ?? null,
    snapshotVersion: allocation.summary?.version ?? null,
    nextSettlement: nextSettlement(schedule),
  };
};
