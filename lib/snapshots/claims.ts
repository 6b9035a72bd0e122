// Exercise-claim use cases: the claim transaction (participant pays, the custodial distribution vault co-signs)
// and the claim status. A claim pays the wallet's whole unclaimed allocation of the coin (airdrop by the current
// snapshot + emission by settled days); claims are numbered receipts on chain (claim-ledger.ts), so a wallet can
// claim again as its allocation grows and never more than it.
import type { KeyPairSigner } from '@solana/kit';
import { getCreateAccountWithSeedInstruction, SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import {
  address,
  type ChainReader,
  externalSigner,
  memoInstruction,
  signPlan,
  type TransactionPlan,
  wireTransaction,
} from '../chain/index.js';
import { AppError, errors } from '../core/errors.js';
import {
  CLAIM_MEMO,
  claimableAmount,
  claimReceiptAddress,
  claimReceiptSeed,
  type LedgerDeps,
  readLedger,
  walletAllocation,
} from './claim-ledger.js';
import type { ReadDeps } from './service.js';

export interface ClaimDeps extends ReadDeps, LedgerDeps {
  chain: Pick<
    ChainReader,
    | 'getAccountInfo'
    | 'getMint'
    | 'getMinimumBalanceForRentExemption'
    | 'findSignatures'
    | 'getBlockHeight'
    | 'getLatestBlockhash'
  >;
  loadVault(coinMint: string): Promise<KeyPairSigner | undefined>;
}

/** A blockhash stays valid for this many blocks after its own (Solana's MAX_PROCESSING_AGE). */
const BLOCKHASH_VALIDITY = 150;

const requireVault = async (deps: ClaimDeps, coinMint: string) => {
  const vault = await deps.loadVault(coinMint);
  if (!vault) throw errors.notFound(`Distribution vault of ${coinMint}`);
  return vault;
};

/** A claim ready to sign: the plan (vault as co-signer, participant as fee payer) and what it pays. */
export interface PreparedClaim {
  plan: TransactionPlan;
  /** What the participant pays besides the fee: the receipt's rent, and the token account it may create. */
  costs: { receiptLamports: bigint; tokenAccount: string; tokenProgram: string };
  summary: {
    participant: string;
    amount: string;
    claimNumber: number;
    allocated: string;
    airdropAllocation: string;
    emissionAllocation: string;
    claimedBefore: string;
    index: number | null;
    merkleRoot: string | null;
    snapshotVersion: number | null;
    receiptAddress: string;
  };
}

/**
 * The claim of a wallet's whole unclaimed allocation, not yet signed: 404 without allocation, 409 when all of it
 * is claimed or a claim of this number just landed.
 */
export const prepareClaim = async (
  input: { gtokenAddress: string; participant: string; referrer?: string | undefined },
  deps: ClaimDeps,
): Promise<PreparedClaim> => {
  const { gtokenAddress: coinMint, participant } = input;
  const allocation = await walletAllocation(coinMint, participant, deps);
  if (allocation.total === 0n)
    throw new AppError('NOT_FOUND', `${participant} has no allocation of ${coinMint} (airdrop or emission)`);
  const vault = await requireVault(deps, coinMint);
  const ledger = await readLedger(coinMint, participant, vault.address, deps);
  if (ledger.claimed === null)
    throw new Error(`A landed claim of ${participant} for ${coinMint} has no readable amount; retry later`);
  const amount = claimableAmount(allocation.total, ledger.claimed);
  if (amount === 0n)
    throw new AppError(
      'CONFLICT',
      `${participant} has already claimed its whole allocation of ${coinMint} (${ledger.claimed} base units); ` +
        'the next settled emission day adds to it',
    );
  const claimNumber = ledger.next;
  const receipt = await claimReceiptAddress(vault.address, coinMint, participant, claimNumber);
  const [existing, coin, receiptLamports] = await Promise.all([
    deps.chain.getAccountInfo(receipt),
    deps.chain.getMint(coinMint),
    deps.chain.getMinimumBalanceForRentExemption(0),
  ]);
  // Landed between the walk and now: the caller asks again and gets the next number.
  if (existing) throw new AppError('CONFLICT', `A claim of ${participant} just landed; build again`);
  if (!coin) throw errors.notFound(`Game coin ${coinMint}`);

  const mint = address(coinMint);
  const tokenProgram = address(coin.programId);
  const payer = externalSigner(participant);
  const [[vaultAta], [participantAta]] = await Promise.all([
    findAssociatedTokenPda({ mint, owner: vault.address, tokenProgram }),
    findAssociatedTokenPda({ mint, owner: payer.address, tokenProgram }),
  ]);
  const { airdrop, summary } = allocation;
  const memo = [
    CLAIM_MEMO,
    `mint=${coinMint}`,
    `claim=${claimNumber}`,
    ...(airdrop ? [`version=${airdrop.summary.version}`, `index=${airdrop.index}`] : []),
    `amount=${amount}`,
    `allocated=${allocation.total}`,
    ...(input.referrer ? [`referrer=${input.referrer}`] : []),
  ].join(' ');
  const plan: TransactionPlan = {
    feePayer: payer.address,
    instructions: [
      getCreateAccountWithSeedInstruction({
        payer,
        newAccount: receipt,
        baseAccount: vault,
        base: vault.address,
        seed: claimReceiptSeed(coinMint, participant, claimNumber),
        amount: receiptLamports,
        space: 0,
        programAddress: SYSTEM_PROGRAM_ADDRESS,
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
          authority: vault,
          amount,
          decimals: coin.decimals,
        },
        { programAddress: tokenProgram },
      ),
      memoInstruction(memo),
    ],
  };
  return {
    plan,
    costs: { receiptLamports, tokenAccount: participantAta, tokenProgram },
    summary: {
      participant,
      amount: amount.toString(),
      claimNumber,
      allocated: allocation.total.toString(),
      airdropAllocation: allocation.airdropAmount.toString(),
      emissionAllocation: allocation.emissionAmount.toString(),
      claimedBefore: ledger.claimed.toString(),
      index: airdrop?.index ?? null,
      merkleRoot: airdrop ? airdrop.summary.merkleRoot : null,
      snapshotVersion: summary?.version ?? null,
      receiptAddress: receipt,
    },
  };
};

/** POST /token-launcher/exercise-claim/build-transactions: one transaction paying the whole unclaimed allocation. */
export const buildClaimTransactions = async (
  input: { gtokenAddress: string; participant: string; referrer?: string; blockhash?: string },
  deps: ClaimDeps,
) => {
  const { plan, summary } = await prepareClaim(input, deps);
  let blockhash: string;
  let lastValidBlockHeight: number;
  if (input.blockhash) {
    // A caller's blockhash: its expiry is at most 150 blocks after the current height.
    blockhash = input.blockhash;
    lastValidBlockHeight = (await deps.chain.getBlockHeight()) + BLOCKHASH_VALIDITY;
  } else {
    ({ blockhash, lastValidBlockHeight } = await deps.chain.getLatestBlockhash());
  }
  const tx = await signPlan(plan, { blockhash, lastValidBlockHeight });
  const { participant: _, ...fields } = summary;
  return { transactions: [wireTransaction(tx)], ...fields, blockhash, lastValidBlockHeight };
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
  const [allocation, vault, schedule] = await Promise.all([
    walletAllocation(coinMint, wallet, deps),
    deps.findVaultAddress(coinMint),
    deps.findEmissionSchedule(coinMint),
  ]);
  const ledger = vault ? await readLedger(coinMint, wallet, vault, deps) : undefined;
  const claimed = ledger?.claimed ?? 0n;
  const claimable = vault && ledger?.claimed !== null ? claimableAmount(allocation.total, claimed) : 0n;
  const last = ledger?.claims.at(-1);
  const state: 'claimable' | 'claimed' | 'not_eligible' =
    claimable > 0n ? 'claimable' : last ? 'claimed' : 'not_eligible';
  const claimedView = ledger?.claimed === null ? null : claimed.toString();
  return {
    gtokenAddress: coinMint,
    wallet,
    canClaim: claimable > 0n,
    state,
    amount: state === 'claimable' ? claimable.toString() : state === 'claimed' ? claimedView : null,
    allocated: allocation.total.toString(),
    airdropAllocation: allocation.airdropAmount.toString(),
    emissionAllocation: allocation.emissionAmount.toString(),
    claimed: claimedView,
    claimable: claimable.toString(),
    claims: ledger?.claims.length ?? 0,
    claimedAt: last?.claimedAt ?? null,
    signature: last?.signature ?? null,
    snapshotVersion: allocation.summary?.version ?? null,
    nextSettlement: nextSettlement(schedule),
  };
};
