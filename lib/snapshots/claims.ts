// Exercise-claim use cases: the claim transaction (participant pays, the custodial distribution vault co-signs)
// and the claim status. One claim per wallet per coin, enforced on chain: the transaction creates a receipt
// account at createWithSeed(vault, seed(coin, wallet)); System `CreateAccountWithSeed` fails when it exists.
import { createHash } from 'node:crypto';
import { createAddressWithSeed, type KeyPairSigner } from '@solana/kit';
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
  wireTransaction,
} from '../chain/index.js';
import { AppError, errors } from '../core/errors.js';
import { decodeAddress } from './allocation.js';
import { leafHash, verifyProof } from './merkle.js';
import type { ClaimRecord } from './repository.js';
import { findProof, type ReadDeps, requireSummary } from './service.js';

export interface ClaimDeps extends ReadDeps {
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
  getClaimRecord(coinMint: string, wallet: string): Promise<ClaimRecord | undefined>;
  recordClaim(claim: ClaimRecord): Promise<ClaimRecord>;
  now(): Date;
}

/** Memo prefix of claim transactions (the status reads the claimed amount back from it). */
export const CLAIM_MEMO = 'arcadia:claim';
/** A blockhash stays valid for this many blocks after its own (Solana's MAX_PROCESSING_AGE). */
const BLOCKHASH_VALIDITY = 150;

/** Seed (32 chars, the System program's limit) of a wallet's claim receipt for a coin. */
export const claimReceiptSeed = (coinMint: string, wallet: string): string =>
  `c${createHash('sha256').update(`arcadia-claim:${coinMint}:${wallet}`).digest('hex').slice(0, 31)}`;

/** Address of a wallet's claim receipt: System-owned, 0 bytes, created with seed from the vault. */
export const claimReceiptAddress = (vault: string, coinMint: string, wallet: string) =>
  createAddressWithSeed({
    baseAddress: address(vault),
    seed: claimReceiptSeed(coinMint, wallet),
    programAddress: SYSTEM_PROGRAM_ADDRESS,
  });

const requireVault = async (deps: ClaimDeps, coinMint: string) => {
  const vault = await deps.loadVault(coinMint);
  if (!vault) throw errors.notFound(`Distribution vault of ${coinMint}`);
  return vault;
};

/** POST /token-launcher/exercise-claim/build-transactions. */
export const buildClaimTransactions = async (
  input: { gtokenAddress: string; participant: string; referrer?: string; blockhash?: string },
  deps: ClaimDeps,
) => {
  const { gtokenAddress: coinMint, participant } = input;
  const summary = await requireSummary(coinMint, deps);
  const proof = await findProof(summary, participant, deps);
  if (!proof)
    throw new AppError('NOT_FOUND', `${participant} has no allocation in the snapshot of ${coinMint}`);
  const claimant = Buffer.alloc(32);
  decodeAddress(participant, claimant);
  const amount = BigInt(proof.amount);
  const leaf = leafHash(claimant, amount, BigInt(proof.amountLocked));
  const siblings = proof.proof.map((hex) => Buffer.from(hex, 'hex'));
  if (!verifyProof(leaf, siblings, Buffer.from(summary.merkleRoot, 'hex')))
    throw new Error(`Stored proof of ${participant} does not verify against ${summary.merkleRoot}`);

  const vault = await requireVault(deps, coinMint);
  const receipt = await claimReceiptAddress(vault.address, coinMint, participant);
  const [existing, coin, receiptLamports] = await Promise.all([
    deps.chain.getAccountInfo(receipt),
    deps.chain.getMint(coinMint),
    deps.chain.getMinimumBalanceForRentExemption(0),
  ]);
  if (existing) throw new AppError('CONFLICT', `${participant} has already claimed ${coinMint}`);
  if (!coin) throw errors.notFound(`Game coin ${coinMint}`);

  let blockhash: string;
  let lastValidBlockHeight: number;
  if (input.blockhash) {
    // A caller's blockhash: its expiry is at most 150 blocks after the current height.
    blockhash = input.blockhash;
    lastValidBlockHeight = (await deps.chain.getBlockHeight()) + BLOCKHASH_VALIDITY;
  } else {
    ({ blockhash, lastValidBlockHeight } = await deps.chain.getLatestBlockhash());
  }

  const mint = address(coinMint);
  const tokenProgram = address(coin.programId);
  const payer = externalSigner(participant);
  const [[vaultAta], [participantAta]] = await Promise.all([
    findAssociatedTokenPda({ mint, owner: vault.address, tokenProgram }),
    findAssociatedTokenPda({ mint, owner: payer.address, tokenProgram }),
  ]);
  const memo = [
    CLAIM_MEMO,
    `mint=${coinMint}`,
    `version=${summary.version}`,
    `index=${proof.index}`,
    `amount=${amount}`,
    ...(input.referrer ? [`referrer=${input.referrer}`] : []),
  ].join(' ');
  const tx = await signPlan(
    {
      feePayer: payer.address,
      instructions: [
        getCreateAccountWithSeedInstruction({
          payer,
          newAccount: receipt,
          baseAccount: vault,
          base: vault.address,
          seed: claimReceiptSeed(coinMint, participant),
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
    },
    { blockhash, lastValidBlockHeight },
  );
  return {
    transactions: [wireTransaction(tx)],
    amount: amount.toString(),
    index: proof.index,
    merkleRoot: summary.merkleRoot,
    snapshotVersion: summary.version,
    receiptAddress: receipt,
    blockhash,
    lastValidBlockHeight,
  };
};

const memoAmount = (memo: string | null) => /\bamount=(\d+)/.exec(memo ?? '')?.[1] ?? null;

/** What the claim status reads: no vault key, nothing that signs. */
export type ClaimStatusDeps = ReadDeps &
  Pick<ClaimDeps, 'getClaimRecord' | 'recordClaim' | 'now'> & {
    chain: Pick<ChainReader, 'getAccountInfo' | 'findSignatures'>;
    /** The distribution vault's address, its key left sealed (undefined when the coin was not launched here). */
    findVaultAddress(coinMint: string): Promise<string | undefined>;
  };

/** GET /token-launcher/exercise-claim/{gtokenAddress}/status/{wallet}. */
export const getClaimStatus = async (coinMint: string, wallet: string, deps: ClaimStatusDeps) => {
  const summary = await deps.getSummary(coinMint);
  const vault = summary ? await deps.findVaultAddress(coinMint) : undefined;
  const base = { gtokenAddress: coinMint, wallet, snapshotVersion: summary?.version ?? null };
  if (!summary || !vault)
    return { ...base, canClaim: false, state: 'not_eligible' as const, amount: null, claimedAt: null };
  const receipt = await claimReceiptAddress(vault, coinMint, wallet);
  const recorded = await deps.getClaimRecord(coinMint, wallet);
  if (recorded || (await deps.chain.getAccountInfo(receipt))) {
    let claim = recorded;
    if (!claim) {
      const landed = (await deps.chain.findSignatures(receipt, 10)).filter((s) => s.err === null);
      const first = landed.at(-1); // newest first: the oldest created the receipt
      claim = await deps.recordClaim({
        coinMint,
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
  const proof = await findProof(summary, wallet, deps);
  if (!proof)
    return { ...base, canClaim: false, state: 'not_eligible' as const, amount: null, claimedAt: null };
  return { ...base, canClaim: true, state: 'claimable' as const, amount: proof.amount, claimedAt: null };
};
