// Exercise-claim use cases: the claim transaction (participant pays, the custodial distribution vault co-signs)
// and the claim status. One claim per wallet per coin, enforced on chain: the transaction creates a receipt
// account at createWithSeed(vault, seed(coin, wallet)); System `CreateAccountWithSeed` fails when it exists.
import { createHash } from 'node:crypto';
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import { type Keypair, PublicKey, SystemProgram, Transaction } from '@solana/web3.js';
import type { Chain } from '../chain/index.js';
import { createMemoInstruction } from '../chain/spl.js';
import { AppError, errors } from '../http/errors.js';
import { decodeAddress } from './allocation.js';
import { leafHash, verifyProof } from './merkle.js';
import type { ClaimRecord } from './repository.js';
import { findProof, type ReadDeps, requireSummary } from './service.js';

export interface ClaimDeps extends ReadDeps {
  chain: Pick<
    Chain,
    'connection' | 'getAccountInfo' | 'getMint' | 'getMinimumBalanceForRentExemption' | 'findSignatures'
  >;
  loadVault(tokenMint: string): Promise<Keypair | undefined>;
  getClaimRecord(tokenMint: string, wallet: string): Promise<ClaimRecord | undefined>;
  recordClaim(claim: ClaimRecord): Promise<ClaimRecord>;
  now(): Date;
}

/** Memo prefix of claim transactions (the status reads the claimed amount back from it). */
export const CLAIM_MEMO = 'arcadia:claim';
/** A blockhash stays valid for this many blocks after its own (Solana's MAX_PROCESSING_AGE). */
const BLOCKHASH_VALIDITY = 150;

/** Seed (32 chars, the System program's limit) of a wallet's claim receipt for a coin. */
export const claimReceiptSeed = (tokenMint: string, wallet: string): string =>
  `c${createHash('sha256').update(`arcadia-claim:${tokenMint}:${wallet}`).digest('hex').slice(0, 31)}`;

/** Address of a wallet's claim receipt: System-owned, 0 bytes, created with seed from the vault. */
export const claimReceiptAddress = (
  vault: PublicKey,
  tokenMint: string,
  wallet: string,
): Promise<PublicKey> =>
  PublicKey.createWithSeed(vault, claimReceiptSeed(tokenMint, wallet), SystemProgram.programId);

const requireVault = async (deps: ClaimDeps, tokenMint: string) => {
  const vault = await deps.loadVault(tokenMint);
  if (!vault) throw errors.notFound(`Distribution vault of ${tokenMint}`);
  return vault;
};

/** POST /token-launcher/exercise-claim/build-transactions. */
export const buildClaimTransactions = async (
  deps: ClaimDeps,
  input: { gtokenAddress: string; participant: string; referrer?: string; blockhash?: string },
) => {
  const { gtokenAddress: tokenMint, participant } = input;
  const summary = await requireSummary(deps, tokenMint);
  const proof = await findProof(deps, summary, participant);
  if (!proof)
    throw new AppError('NOT_FOUND', `${participant} has no allocation in the snapshot of ${tokenMint}`);
  const claimant = Buffer.alloc(32);
  decodeAddress(participant, claimant);
  const amount = BigInt(proof.amount);
  const leaf = leafHash(claimant, amount, BigInt(proof.amountLocked));
  const siblings = proof.proof.map((hex) => Buffer.from(hex, 'hex'));
  if (!verifyProof(leaf, siblings, Buffer.from(summary.merkleRoot, 'hex')))
    throw new Error(`Stored proof of ${participant} does not verify against ${summary.merkleRoot}`);

  const vault = await requireVault(deps, tokenMint);
  const participantKey = new PublicKey(participant);
  const receipt = await claimReceiptAddress(vault.publicKey, tokenMint, participant);
  const [existing, coin, receiptLamports] = await Promise.all([
    deps.chain.getAccountInfo(receipt),
    deps.chain.getMint(tokenMint),
    deps.chain.getMinimumBalanceForRentExemption(0),
  ]);
  if (existing) throw new AppError('CONFLICT', `${participant} has already claimed ${tokenMint}`);
  if (!coin) throw errors.notFound(`Game coin ${tokenMint}`);

  let blockhash: string;
  let lastValidBlockHeight: number;
  if (input.blockhash) {
    // A caller's blockhash: its expiry is at most 150 blocks after the current height.
    blockhash = input.blockhash;
    lastValidBlockHeight = (await deps.chain.connection.getBlockHeight('confirmed')) + BLOCKHASH_VALIDITY;
  } else {
    ({ blockhash, lastValidBlockHeight } = await deps.chain.connection.getLatestBlockhash('confirmed'));
  }

  const mint = new PublicKey(tokenMint);
  const programId = new PublicKey(coin.programId);
  const vaultAta = getAssociatedTokenAddressSync(mint, vault.publicKey, false, programId);
  const participantAta = getAssociatedTokenAddressSync(mint, participantKey, false, programId);
  const memo = [
    CLAIM_MEMO,
    `mint=${tokenMint}`,
    `version=${summary.version}`,
    `index=${proof.index}`,
    `amount=${amount}`,
    ...(input.referrer ? [`referrer=${input.referrer}`] : []),
  ].join(' ');
  const tx = new Transaction({ feePayer: participantKey, blockhash, lastValidBlockHeight }).add(
    SystemProgram.createAccountWithSeed({
      fromPubkey: participantKey,
      newAccountPubkey: receipt,
      basePubkey: vault.publicKey,
      seed: claimReceiptSeed(tokenMint, participant),
      lamports: Number(receiptLamports),
      space: 0,
      programId: SystemProgram.programId,
    }),
    createAssociatedTokenAccountIdempotentInstruction(
      participantKey,
      participantAta,
      participantKey,
      mint,
      programId,
    ),
    createTransferCheckedInstruction(
      vaultAta,
      mint,
      participantAta,
      vault.publicKey,
      amount,
      coin.decimals,
      [],
      programId,
    ),
    createMemoInstruction(memo),
  );
  tx.partialSign(vault);
  return {
    transactions: [tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString('base64')],
    amount: amount.toString(),
    index: proof.index,
    merkleRoot: summary.merkleRoot,
    snapshotVersion: summary.version,
    receiptAddress: receipt.toBase58(),
    blockhash,
    lastValidBlockHeight,
  };
};

const memoAmount = (memo: string | null) => /\bamount=(\d+)/.exec(memo ?? '')?.[1] ?? null;

/** GET /token-launcher/exercise-claim/{gtokenAddress}/status/{wallet}. */
export const getClaimStatus = async (deps: ClaimDeps, tokenMint: string, wallet: string) => {
  const summary = await deps.getSummary(tokenMint);
  const vault = summary ? await deps.loadVault(tokenMint) : undefined;
  const base = { gtokenAddress: tokenMint, wallet, snapshotVersion: summary?.version ?? null };
  if (!summary || !vault)
    return { ...base, canClaim: false, state: 'not_eligible' as const, amount: null, claimedAt: null };
  const receipt = await claimReceiptAddress(vault.publicKey, tokenMint, wallet);
  const recorded = await deps.getClaimRecord(tokenMint, wallet);
  if (recorded || (await deps.chain.getAccountInfo(receipt))) {
    let claim = recorded;
    if (!claim) {
      const landed = (await deps.chain.findSignatures(receipt, 10)).filter((s) => s.err === null);
      const first = landed.at(-1); // newest first: the oldest created the receipt
      claim = await deps.recordClaim({
        tokenMint,
        wallet,
        amount: memoAmount(first?.memo ?? null),
        signature: first?.signature ?? null,
        claimedAt: (first?.blockTime ? new Date(first.blockTime * 1000) : deps.now()).toISOString(),
      });
    }
    return {
      ...base,
      canClaim: false,
      state: 'claimed' as const,
      amount: claim.amount,
      claimedAt: claim.claimedAt,
      signature: claim.signature,
    };
  }
  const proof = await findProof(deps, summary, wallet);
  if (!proof)
    return { ...base, canClaim: false, state: 'not_eligible' as const, amount: null, claimedAt: null };
  return { ...base, canClaim: true, state: 'claimable' as const, amount: proof.amount, claimedAt: null };
};
