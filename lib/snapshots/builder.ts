// The snapshot builder: holders of a coin's airdrop token → this round's release of the airdrop pool, pro rata
// → added to the previous snapshot's cumulative leaves → Jito merkle tree → immutable S3 objects → conditional
// switch of the coin's summary (airdrop-release.ts has the rule). SQS-driven: a message may be delivered more than
// once and a build may crash at any step, so every step is idempotent or guarded by the summary's version.
import * as z from 'zod/mini';
import { ChainError, type ChainReader, HoldersLimitError, type TokenHolders } from '../chain/index.js';
import { logger } from '../core/logger.js';
import { processQueueBatch, type QueueRecord } from '../core/queue-batch.js';
import { addRound, airdropDue, releaseWindow } from './airdrop-release.js';
import { allocateHolders, minBalanceRaw } from './allocation.js';
import { AIRDROP_POOL } from './emission-math.js';
import { snapshotKeys } from './keys.js';
import { type GetObject, HOLDERS_OBJECT, type StoredObject, serializeSnapshot } from './layout.js';
import { buildDistributionFromSorted } from './merkle.js';
import type { SnapshotSummary } from './repository.js';

/** Body of a snapshot queue message. */
export const snapshotMessageSchema = z.object({
  /** Game coin mint whose airdrop snapshot to rebuild. */
  coinMint: z.string().check(z.regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/)),
  requestedAt: z.optional(z.string()),
});
export type SnapshotMessage = z.infer<typeof snapshotMessageSchema>;

/** The coin as the builder needs it: its game's airdrop token, the custodial vault, its emission window. */
export interface AirdropCoin {
  coinMint: string;
  gameId: string;
  airdropMint: string;
  vaultAddress: string | null;
  emissionStartAt: string;
  emissionDays: number;
}

export interface BuilderDeps {
  chain: Pick<ChainReader, 'listTokenHolders' | 'getMint' | 'getSlot'>;
  /** The coin and its game's airdrop token; undefined when the mint is no game coin or has no airdrop token. */
  findCoin(coinMint: string): Promise<AirdropCoin | undefined>;
  putObjects(objects: readonly StoredObject[]): Promise<void>;
  /** Reads the previous snapshot's leaves. */
  getObject: GetObject;
  getSummary(coinMint: string): Promise<SnapshotSummary | undefined>;
  putSummaryIfNewer(summary: SnapshotSummary): Promise<boolean>;
  now(): Date;
}

export type BuildOutcome =
  | { status: 'created' | 'unchanged'; summary: SnapshotSummary }
  | { status: 'superseded'; summary: SnapshotSummary | undefined }
  | { status: 'skipped'; reason: string };

/** Whole airdrop tokens a wallet must hold to be in a round. */
export const MIN_BALANCE_WHOLE_TOKENS = 1n;

/**
 * Token accounts of one airdrop mint a build reads at most: the read stops as soon as it passes this, so a mint
 * with more (a stablecoin, say) costs bounded memory and is reported unusable and acknowledged: retrying cannot
 * make it smaller. 1M holders build within 512 MiB (bench/holders.ts); the bound leaves room for wallets with
 * several accounts.
 */
export const MAX_AIRDROP_ACCOUNTS = 1_500_000;

const unusable = (coinMint: string, airdropMint: string, reason: string): BuildOutcome => {
  logger.warn('airdrop token unusable', { coinMint, airdropMint, reason });
  return { status: 'skipped', reason: `airdrop token ${airdropMint} unusable: ${reason}` };
};

/**
 * Build the next snapshot of one game coin: release what became due since the current one to the holders of
 * now. Nothing due, or no eligible holder, leaves the current snapshot (`unchanged`; what is due waits for the
 * next round). The first snapshot pins the coin's airdrop token: later changes of the game's field never move it.
 */
export const buildSnapshot = async (coinMint: string, deps: BuilderDeps): Promise<BuildOutcome> => {
  const coin = await deps.findCoin(coinMint);
  if (!coin) return { status: 'skipped', reason: 'not a game coin with an airdrop token' };
  const current = await deps.getSummary(coinMint);
  const airdropMint = current?.airdropMint ?? coin.airdropMint;
  const [coinInfo, airdropInfo] = await Promise.all([
    deps.chain.getMint(coin.coinMint),
    deps.chain.getMint(airdropMint),
  ]);
  if (!coinInfo) return { status: 'skipped', reason: 'game coin mint not found on chain' };
  if (!airdropInfo) return unusable(coinMint, airdropMint, 'not a token mint on chain');
  // The fixed allocation, not the mint's supply now: burnt tokens must not shrink the pool below what was released.
  const pool = AIRDROP_POOL;
  const released = current ? BigInt(current.totalAllocation) : 0n;
  const due = airdropDue(pool, releaseWindow(coin.emissionStartAt, coin.emissionDays), deps.now().getTime());
  const round = due - released;
  const keep = (reason: string): BuildOutcome =>
    current ? { status: 'unchanged', summary: current } : { status: 'skipped', reason };
  if (round <= 0n) return keep('nothing due yet');

  // The slot is read before the holders: the round reflects the chain at this slot or later.
  const slot = await deps.chain.getSlot();
  let holders: TokenHolders | undefined;
  try {
    holders = await deps.chain.listTokenHolders(airdropMint, {
      programId: airdropInfo.programId,
      maxAccounts: MAX_AIRDROP_ACCOUNTS,
      // Unknown before the first snapshot: assume a large set, so a big mint is never asked for in one answer.
      expectedAccounts: current ? current.holderCount : MAX_AIRDROP_ACCOUNTS,
    });
  } catch (error) {
    // Too many holders, or a node that refuses the read for good (filter unsupported, a partition it cannot
    // split): the next hour's read would fail the same way.
    const permanent = error instanceof HoldersLimitError || (error instanceof ChainError && !error.transient);
    if (!permanent) {
      // A read that could not finish (a page failing past its retries, or the invocation's deadline): the message
      // is redelivered and the read starts again then.
      logger.warn('holder read did not finish; retried with the message', {
        coinMint,
        airdropMint,
        reason: (error as Error).message,
      });
      throw error;
    }
    return unusable(coinMint, airdropMint, (error as Error).message);
  }
  const readSlots = holders.slots;
  // PDAs (pools, program vaults) hold tokens but have no key to claim with: their share goes to the wallets.
  const shares = allocateHolders(holders, round, {
    minBalance: minBalanceRaw(airdropInfo.decimals, MIN_BALANCE_WHOLE_TOKENS),
    excludeOwners: [coin.vaultAddress, coin.coinMint].filter((a): a is string => a !== null),
    excludeOffCurve: true,
  });
  holders = undefined; // let the (possibly large) columns go before the tree is built
  if (shares.count === 0) return keep('no eligible holder');

  const previous = current ? await deps.getObject(`${current.prefix}${HOLDERS_OBJECT}`) : new Uint8Array(0);
  if (!previous) throw new Error(`Leaves of ${coinMint} v${current?.version} are missing`);
  const cumulative = addRound(previous, shares);
  // Σ leaves is what was released: never more than the pool, whatever happened between rounds.
  if (cumulative.total !== released + round || cumulative.total > pool)
    throw new Error(`Airdrop of ${coinMint} would allocate ${cumulative.total} of a ${pool} pool`);
  const distribution = buildDistributionFromSorted(cumulative.claimants, cumulative.amounts);
  const root = distribution.tree.root.toString('hex');
  const version = (current?.version ?? 0) + 1;
  const createdAt = deps.now().toISOString();
  const prefix = snapshotKeys.objectPrefix(coinMint, version, root);
  await deps.putObjects(
    serializeSnapshot(distribution, {
      prefix,
      version,
      mint: coinMint,
      airdropMint,
      slot,
      readSlots,
      createdAt,
    }),
  );
  const summary: SnapshotSummary = {
    coinMint,
    airdropMint,
    gameId: coin.gameId,
    merkleRoot: root,
    holderCount: cumulative.amounts.length,
    totalAllocation: cumulative.total.toString(),
    pool: pool.toString(),
    slot,
    readSlots,
    createdAt,
    version,
    prefix,
  };
  // Only over the version this round was added to: a concurrent build of the same round loses here.
  if (await deps.putSummaryIfNewer(summary)) {
    logger.info('snapshot created', {
      coinMint,
      version,
      root,
      holderCount: summary.holderCount,
      round,
      readSlots,
    });
    return { status: 'created', summary };
  }
  return { status: 'superseded', summary: await deps.getSummary(coinMint) };
};

export type { QueueRecord };

/**
 * Process a batch: each record independently; malformed bodies and failed builds are reported as batch item
 * failures (retried by SQS, then moved to the DLQ after 5 receives), the rest are deleted.
 */
export const processSnapshotBatch = (
  records: readonly QueueRecord[],
  build: (coinMint: string) => Promise<BuildOutcome>,
): Promise<{ batchItemFailures: Array<{ itemIdentifier: string }> }> =>
  processQueueBatch(records, snapshotMessageSchema, 'snapshot build', async ({ coinMint }) => {
    const outcome = await build(coinMint);
    logger.info('snapshot build', { coinMint, status: outcome.status });
  });
