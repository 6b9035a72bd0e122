// What a wallet is owed and has taken of a game coin: its cumulative allocation (airdrop released by the snapshots
// while it held + emission by settled days) and its claims, which are the platform's own records (repository.ts):
// each written, with its amount and the exact transaction the vault signed, before that transaction leaves the
// platform. A claim counts as landed only when its receipt is used on chain, which only that vault-signed
// transaction can do; nothing a stranger writes on chain (memos, transfers into any address) counts.
import { createHash } from 'node:crypto';
import { createAddressWithSeed } from '@solana/kit';
import { SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import bs58 from 'bs58';
import { address, type ChainReader, fateOf, receiptUsed } from '../../chain/index.js';
import { countMetric } from '../../core/metrics.js';
import { decodeAddress } from '../allocation.js';
import { getWalletEmission } from '../emission/repository.js';
import { leafHash, verifyProof } from '../merkle.js';
import type { ClaimRecord, SnapshotSummary } from '../repository.js';
import { findProof, type ReadDeps } from '../service.js';

/** Memo prefix of claim transactions (for explorers and referral tracking; the platform never reads it back). */
export const CLAIM_MEMO = 'arcadia:claim';

/**
 * Seed (32 chars, the System program's limit) of a wallet's n-th claim receipt for a coin. "v2": receipts of the
 * release that created 0-byte accounts live at other addresses, so none of them can pass for a used receipt.
 */
export const claimReceiptSeed = (coinMint: string, wallet: string, claimNumber: number): string =>
  `c${createHash('sha256').update(`arcadia-claim-v2:${coinMint}:${wallet}:${claimNumber}`).digest('hex').slice(0, 31)}`;

/** Address of a wallet's n-th claim receipt: System-owned, derived with seed from the vault. */
export const claimReceiptAddress = (vault: string, coinMint: string, wallet: string, claimNumber: number) =>
  createAddressWithSeed({
    baseAddress: address(vault),
    seed: claimReceiptSeed(coinMint, wallet, claimNumber),
    programAddress: SYSTEM_PROGRAM_ADDRESS,
  });

export interface LedgerDeps {
  chain: Pick<ChainReader, 'getAccountInfo' | 'getBlockHeight' | 'findSignatures' | 'getLandedTransaction'>;
  listClaimRecords(coinMint: string, wallet: string): Promise<ClaimRecord[]>;
  settleClaim(
    claim: ClaimRecord,
    change: { status: 'landed' | 'expired'; at: string; signature?: string | null },
  ): Promise<ClaimRecord>;
  now(): Date;
}

/** A wallet's claims of a coin as they stand. */
export interface Ledger {
  /** Landed claims, in order. */
  landed: ClaimRecord[];
  /** Σ amounts of the landed claims. */
  claimed: bigint;
  /**
   * The claim whose transaction can still land, if any (at most one number: a build answers it, or replaces it with
   * another attempt of the same number and amount, instead of starting a new one).
   */
  pending: ClaimRecord | undefined;
  /** The number the next claim takes, and the expired attempt it replaces at that number. */
  next: number;
  replaces: ClaimRecord | undefined;
}

/** How many of a receipt's newest transactions are searched for the claim that used it. */
const RECEIPT_SIGNATURES = 100;

/** Reads a compact-u16 (the wire format's lengths) at `offset`: its value and the offset after it. */
const compactU16 = (bytes: Buffer, offset: number): [number, number] => {
  let value = 0;
  for (let shift = 0; shift <= 14; shift += 7) {
    if (offset >= bytes.length) break;
    const byte = bytes[offset++] ?? 0;
    value |= (byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [value, offset];
  }
  throw new Error('malformed wire transaction: length');
};

/**
 * The addresses that already signed a base64 wire transaction (the vault, in a recorded claim: the participant's
 * slot is empty). Read without kit's transaction codecs, which the claim status's bundle leaves out: signatures
 * (compact-u16 count, 64 bytes each), then the message: an optional version byte, a 3-byte header, the account
 * keys (compact-u16 count, 32 bytes each), the first of which sign in the signatures' order.
 */
export const presentSigners = (wire: string): string[] => {
  const bytes = Buffer.from(wire, 'base64');
  const [count, afterCount] = compactU16(bytes, 0);
  let offset = afterCount + count * 64;
  if (((bytes[offset] ?? 0) & 0x80) !== 0) offset += 1;
  const required = bytes[offset] ?? 0;
  const [keys, afterKeys] = compactU16(bytes, offset + 3);
  if (required !== count || keys < count || afterKeys + keys * 32 > bytes.length)
    throw new Error('malformed wire transaction: signers');
  const signers: string[] = [];
  for (let i = 0; i < count; i++) {
    const signature = bytes.subarray(afterCount + i * 64, afterCount + (i + 1) * 64);
    if (signature.some((b) => b !== 0))
      signers.push(bs58.encode(bytes.subarray(afterKeys + i * 32, afterKeys + (i + 1) * 32)));
  }
  return signers;
};

/**
 * The signature of a landed claim's transaction, which the participant may have sent itself: among the receipt's
 * successful transactions with the claim memo, the one the vault signed (no other can: a stranger can write the
 * memo and fund the receipt, not sign as the vault). Any attempt of the claim's number may be the one that landed
 * (a replaced one stays valid until its blockhash expires), and every one pays the recorded amount, so the vault's
 * key is what identifies it, not the recorded attempt's signature. Null when it is not among the receipt's newest
 * transactions.
 */
const landedSignature = async (claim: ClaimRecord, chain: LedgerDeps['chain']): Promise<string | null> => {
  let vault: string[] | undefined;
  for (const entry of await chain.findSignatures(claim.receiptAddress, RECEIPT_SIGNATURES)) {
    if (entry.err !== null || !entry.memo?.includes(CLAIM_MEMO)) continue;
    vault ??= presentSigners(claim.transaction);
    const tx = await chain.getLandedTransaction(entry.signature);
    if (tx && vault.length > 0 && vault.every((signer) => tx.signers.includes(signer)))
      return entry.signature;
  }
  return null;
};

/**
 * Settle a pending claim against the chain: `landed` when its receipt is used (with its transaction's signature,
 * also when the participant sent it); `expired` when the chain had
 * passed its lifetime before the receipt was read unused (`fateOf`: a claim that lands between the reads is seen
 * landed); else still pending.
 */
export const resolveClaim = async (claim: ClaimRecord, deps: LedgerDeps): Promise<ClaimRecord> => {
  if (claim.status !== 'pending') return claim;
  const fate = await fateOf(deps.chain, claim.lastValidBlockHeight, async () =>
    receiptUsed(await deps.chain.getAccountInfo(claim.receiptAddress))
      ? { kind: 'landed' }
      : { kind: 'unseen' },
  );
  const at = deps.now().toISOString();
  if (fate.kind === 'landed') {
    const signature = claim.signature ?? (await landedSignature(claim, deps.chain));
    const landed = await deps.settleClaim(claim, { status: 'landed', at, signature });
    countMetric('ClaimsLanded');
    return landed;
  }
  if (fate.kind === 'expired') return deps.settleClaim(claim, { status: 'expired', at });
  return claim;
};

/** Read a wallet's claims, settling the pending one against the chain. */
export const readLedger = async (coinMint: string, wallet: string, deps: LedgerDeps): Promise<Ledger> => {
  const records = await Promise.all(
    (await deps.listClaimRecords(coinMint, wallet)).map((claim) => resolveClaim(claim, deps)),
  );
  const landed = records.filter((c) => c.status === 'landed');
  const last = records.at(-1);
  return {
    landed,
    claimed: landed.reduce((sum, c) => sum + BigInt(c.amount), 0n),
    pending: records.find((c) => c.status === 'pending'),
    next: last ? (last.status === 'expired' ? last.claimNumber : last.claimNumber + 1) : 0,
    replaces: last?.status === 'expired' ? last : undefined,
  };
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
