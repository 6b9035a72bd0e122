// The pool's side of the daily settlement (settlement/): what a day may allocate, the vault that pays, and the
// pool's books, written as transaction items the settlement commits with its own records (the pool's owner
// decides the keys and the conditions).
import { getTransferSolInstruction } from '@solana-program/system';
import type { TransactItem } from '../adapters/dynamodb.js';
import { openCustodialKey } from '../adapters/vault-keys.js';
import { address, type KeyPairSigner, memoInstruction, type TransactionPlan } from '../chain/index.js';
import { rewardsKeys, rewardsTable } from './keys.js';
import { poolDayWrite } from './pool-days.js';
import { getPool } from './pool-repository.js';

/**
 * A game's pool as the settlement reads it: the vault and the lamports not yet allocated. Deposits held for
 * tournament periods (earmarked) are in the vault but not the pool's to distribute.
 */
export const poolBooks = async (gameId: string) => {
  const pool = await getPool(gameId);
  if (!pool) return undefined;
  const inflow = BigInt(pool.totalInflowLamports);
  const allocated = BigInt(pool.totalAllocatedLamports);
  const earmarked = BigInt(pool.totalEarmarkedLamports);
  return {
    vaultAddress: pool.vaultAddress,
    inflow,
    allocated,
    earmarked,
    undistributed: inflow - allocated - earmarked,
  };
};

/**
 * The day's allocation on the pool's books, conditional on the allocated total the allocation was computed from:
 * two settlements can never allocate from the same undistributed lamports. A prize run also ends the earmark of
 * its period's deposits (`unearmarked`: what it used is in the allocation, the rest is the pool's again).
 */
export const poolAllocationWrite = (
  gameId: string,
  allocatedBefore: bigint,
  lamports: bigint,
  now: string,
  unearmarked = 0n,
): TransactItem => ({
  Update: {
    TableName: rewardsTable(),
    Key: rewardsKeys.pool(gameId),
    UpdateExpression: `SET totalAllocatedLamports = :after, updatedAt = :now${unearmarked > 0n ? ' ADD totalEarmarkedLamports :unearmark' : ''}`,
    ConditionExpression:
      'attribute_exists(pk) AND (totalAllocatedLamports = :before OR (attribute_not_exists(totalAllocatedLamports) AND :before = :zero))',
    ExpressionAttributeValues: {
      ':before': Number(allocatedBefore),
      ':after': Number(allocatedBefore + lamports),
      ':zero': 0,
      ':now': now,
      ...(unearmarked > 0n ? { ':unearmark': -Number(unearmarked) } : {}),
    },
  },
});

/**
 * A confirmed payout on the pool's books: lamports received, the fee the vault paid, USD at payout (cents), on the
 * pool's totals and on the day's books.
 */
export const poolPayoutWrites = (
  gameId: string,
  paid: { lamports: bigint; fee: bigint; usdCents: number; toPlayer?: boolean },
  now: string,
): TransactItem[] => [
  {
    Update: {
      TableName: rewardsTable(),
      Key: rewardsKeys.pool(gameId),
      UpdateExpression:
        'ADD totalPaidLamports :l, totalFeesLamports :f, totalPaidUsdCents :c, payouts :one SET updatedAt = :now',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: {
        ':l': Number(paid.lamports),
        ':f': Number(paid.fee),
        ':c': paid.usdCents,
        ':one': 1,
        ':now': now,
      },
    },
  },
  poolDayWrite(gameId, now, {
    paidLamports: paid.lamports,
    feesLamports: paid.fee,
    payouts: 1,
    ...(paid.toPlayer ? { playerPayouts: 1 } : {}),
    paidUsdCents: paid.usdCents,
  }),
];

/**
 * The game's custodial vault as a signer, to pay out of it: its sealed key opened for the pool's vault address,
 * refused (CustodialKeyError) when it was sealed for another record or signs for another address.
 */
export const vaultSigner = async (gameId: string): Promise<KeyPairSigner> => {
  const pool = await getPool(gameId);
  if (!pool) throw new Error(`Game ${gameId} has no rewards pool`);
  return openCustodialKey('vault', pool.vaultAddress, pool.vaultSealedKey);
};

/** A System transfer out of the vault (fee payer and signer) with a memo tying it to its settlement line. */
export const buildPayoutTransfer = (args: {
  vault: KeyPairSigner;
  to: string;
  lamports: bigint;
  memo: string;
}): TransactionPlan => ({
  feePayer: args.vault.address,
  instructions: [
    getTransferSolInstruction({ source: args.vault, destination: address(args.to), amount: args.lamports }),
    memoInstruction(args.memo),
  ],
});

/**
 * A run's confirmed commitment on the pool's books: its fee leaves the vault, so it is allocated (the pool's
 * undistributed lamports stop counting it) and booked as a fee, on the totals and on the day's books.
 */
export const poolCommitmentWrites = (gameId: string, fee: bigint, now: string): TransactItem[] => [
  {
    Update: {
      TableName: rewardsTable(),
      Key: rewardsKeys.pool(gameId),
      UpdateExpression:
        'ADD totalAllocatedLamports :f, totalFeesLamports :f, commitments :one SET updatedAt = :now',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':f': Number(fee), ':one': 1, ':now': now },
    },
  },
  poolDayWrite(gameId, now, { allocatedLamports: fee, feesLamports: fee }),
];

/** The run's commitment: the vault (fee payer) signs a memo carrying the statement's root. */
export const buildCommitment = (args: { vault: KeyPairSigner; memo: string }): TransactionPlan => ({
  feePayer: args.vault.address,
  instructions: [memoInstruction(args.memo, args.vault)],
});
