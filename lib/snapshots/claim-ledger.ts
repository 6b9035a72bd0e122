// What a wallet is owed and has taken of a game coin: its cumulative allocation (airdrop by the current snapshot
// plus emission by settled days) and its claims, read from numbered receipts on chain. Claim n creates the receipt
// createWithSeed(vault, seed(coin, wallet, n)); claim n is only built once receipts 0 … n−1 exist, so no claim
// with a lower number can land any more, and each receipt can be created once: the claims that land are a
// sequence, each paying the allocation at its build less what the earlier ones paid (docs/game-coin.md).
import { createHash } from 'node:crypto';
import { createAddressWithSeed } from '@solana/kit';
import { SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { address, type ChainReader } from '../chain/index.js';
import { decodeAddress } from './allocation.js';
import { getWalletEmission } from './emission-repository.js';
import { leafHash, verifyProof } from './merkle.js';
import type { ClaimRecord, SnapshotSummary } from './repository.js';
import { findProof, type ReadDeps } from './service.js';

/** Memo prefix of claim transactions (the ledger reads each claim's amount back from it). */
export const CLAIM_MEMO = 'arcadia:claim';

/**
 * Seed (32 chars, the System program's limit) of a wallet's n-th claim receipt for a coin. Claim 0 keeps the
 * seed of the one-claim receipts that came before numbering, so those count as claim 0.
 */
export const claimReceiptSeed = (coinMint: string, wallet: string, claimNumber = 0): string => {
  const preimage = `arcadia-claim:${coinMint}:${wallet}${claimNumber === 0 ? '' : `:${claimNumber}`}`;
  return `c${createHash('sha256').update(preimage).digest('hex').slice(0, 31)}`;
};

/** Address of a wallet's n-th claim receipt: System-owned, 0 bytes, created with seed from the vault. */
export const claimReceiptAddress = (vault: string, coinMint: string, wallet: string, claimNumber = 0) =>
  createAddressWithSeed({
    baseAddress: address(vault),
    seed: claimReceiptSeed(coinMint, wallet, claimNumber),
    programAddress: SYSTEM_PROGRAM_ADDRESS,
  });

const memoAmount = (memo: string | null) => /\bamount=(\d+)/.exec(memo ?? '')?.[1] ?? null;

export interface LedgerDeps {
  chain: Pick<ChainReader, 'getAccountInfo' | 'findSignatures'>;
  listClaimRecords(coinMint: string, wallet: string): Promise<ClaimRecord[]>;
  recordClaim(claim: ClaimRecord): Promise<ClaimRecord>;
  now(): Date;
}

/** A wallet's landed claims of a coin, in order, and the number its next claim takes. */
export interface Ledger {
  claims: ClaimRecord[];
  /** Σ amounts of the landed claims; null when a landed claim's amount cannot be read (then nothing is built). */
  claimed: bigint | null;
  next: number;
}

/**
 * Walk the wallet's receipts from 0 until one is missing. Claims seen for the first time are recorded once
 * (amount from the claim's memo, time from its block), so later reads cost one Query and one account read.
 */
export const readLedger = async (
  coinMint: string,
  wallet: string,
  vault: string,
  deps: LedgerDeps,
): Promise<Ledger> => {
  const recorded = new Map((await deps.listClaimRecords(coinMint, wallet)).map((r) => [r.claimNumber, r]));
  const claims: ClaimRecord[] = [];
  for (let n = 0; ; n++) {
    let claim = recorded.get(n);
    if (!claim) {
      const receipt = await claimReceiptAddress(vault, coinMint, wallet, n);
      if (!(await deps.chain.getAccountInfo(receipt))) break;
      const landed = (await deps.chain.findSignatures(receipt, 10)).filter((s) => s.err === null);
      const first = landed.at(-1); // newest first: the oldest created the receipt
      const amount = memoAmount(first?.memo ?? null);
      const observed = {
        coinMint,
        wallet,
        claimNumber: n,
        amount,
        signature: first?.signature ?? null,
        claimedAt: (first?.blockTime ? new Date(first.blockTime * 1000) : deps.now()).toISOString(),
      };
      // Only a claim whose amount was read is recorded: an unread one is looked up again next time.
      claim = amount === null ? observed : await deps.recordClaim(observed);
    }
    claims.push(claim);
  }
  const unknown = claims.some((c) => c.amount === null);
  const claimed = unknown ? null : claims.reduce((sum, c) => sum + BigInt(c.amount ?? 0), 0n);
  return { claims, claimed, next: claims.length };
};

/** A wallet's part of the current snapshot, checked against the stored root. */
export const airdropAllocation = async (
  summary: SnapshotSummary | undefined,
  wallet: string,
  deps: ReadDeps,
) => {
  if (!summary) return undefined;
  const proof = await findProof(summary, wallet, deps);
  if (!proof) return undefined;
  const claimant = Buffer.alloc(32);
  decodeAddress(wallet, claimant);
  const leaf = leafHash(claimant, BigInt(proof.amount), BigInt(proof.amountLocked));
  const siblings = proof.proof.map((hex) => Buffer.from(hex, 'hex'));
  if (!verifyProof(leaf, siblings, Buffer.from(summary.merkleRoot, 'hex')))
    throw new Error(`Stored proof of ${wallet} does not verify against ${summary.merkleRoot}`);
  return { amount: BigInt(proof.amount), index: proof.index, summary };
};

/** A wallet's cumulative allocation of a coin: airdrop (current snapshot) + emission (settled days). */
export const walletAllocation = async (coinMint: string, wallet: string, deps: ReadDeps) => {
  const summary = await deps.getSummary(coinMint);
  const [airdrop, emission] = await Promise.all([
    airdropAllocation(summary, wallet, deps),
    getWalletEmission(wallet, coinMint),
  ]);
  const airdropAmount = airdrop?.amount ?? 0n;
  const emissionAmount = emission?.emission ?? 0n;
  return {
    summary,
    airdrop,
    airdropAmount,
    emissionAmount,
    total: airdropAmount + emissionAmount,
    gameId: emission?.gameId ?? summary?.gameId,
  };
};

/** What a claim built now pays: the allocation not yet claimed (never negative). */
export const claimableAmount = (allocated: bigint, claimed: bigint): bigint =>
  allocated > claimed ? allocated - claimed : 0n;
