// The snapshot builder (DESIGN §4, §5): holders of a coin's airdrop token → allocations of the coin's airdrop
// pool → Jito merkle tree → immutable S3 objects → conditional switch of the coin's summary. SQS-driven: a
// message may be delivered more than once and a build may crash at any step, so every step is idempotent.
import * as z from 'zod/mini';
import type { ChainReader } from '../chain/index.js';
import { logger } from '../core/logger.js';
import { processQueueBatch, type QueueRecord } from '../core/queue-batch.js';
import { airdropPoolSize, computeAllocations, minBalanceRaw } from './allocation.js';
import { snapshotKeys } from './keys.js';
import { type StoredObject, serializeSnapshot } from './layout.js';
import { buildDistributionFromSorted } from './merkle.js';
import type { SnapshotSummary } from './repository.js';

/** Body of a snapshot queue message. */
export const snapshotMessageSchema = z.object({
  /** Game coin mint whose airdrop snapshot to rebuild. */
  coinMint: z.string().check(z.regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/)),
  requestedAt: z.optional(z.string()),
});
export type SnapshotMessage = z.infer<typeof snapshotMessageSchema>;

/** The coin as the builder needs it: its game's airdrop token and the custodial vault (excluded from airdrops). */
export interface AirdropCoin {
  coinMint: string;
  gameId: string;
  airdropMint: string;
  vaultAddress: string | null;
}

export interface BuilderDeps {
  chain: Pick<ChainReader, 'listTokenHolders' | 'getMint' | 'getSlot'>;
  /** The coin and its game's airdrop token; undefined when the mint is no game coin or has no airdrop token. */
  findCoin(coinMint: string): Promise<AirdropCoin | undefined>;
  putObjects(objects: readonly StoredObject[]): Promise<void>;
  getSummary(coinMint: string): Promise<SnapshotSummary | undefined>;
  putSummaryIfNewer(summary: SnapshotSummary): Promise<boolean>;
  now(): Date;
}

export type BuildOutcome =
  | { status: 'created' | 'unchanged'; summary: SnapshotSummary }
  | { status: 'superseded'; summary: SnapshotSummary | undefined }
  | { status: 'skipped'; reason: string };

/** Whole airdrop tokens a wallet must hold to be in a snapshot. */
export const MIN_BALANCE_WHOLE_TOKENS = 1n;

/**
 * Build (or confirm) the snapshot of one game coin. Same holder set → same root → no new version; a crash after
 * the objects were written leaves the summary untouched, and the retry rewrites the same objects and switches.
 */
export const buildSnapshot = async (coinMint: string, deps: BuilderDeps): Promise<BuildOutcome> => {
  const coin = await deps.findCoin(coinMint);
  if (!coin) return { status: 'skipped', reason: 'not a game coin with an airdrop token' };
  const [coinInfo, airdropInfo] = await Promise.all([
    deps.chain.getMint(coin.coinMint),
    deps.chain.getMint(coin.airdropMint),
  ]);
  if (!coinInfo) return { status: 'skipped', reason: 'game coin mint not found on chain' };
  if (!airdropInfo) return { status: 'skipped', reason: 'airdrop token mint not found on chain' };
  // The slot is read before the holders: the snapshot reflects the chain at this slot or later.
  const slot = await deps.chain.getSlot();
  const pool = airdropPoolSize(coinInfo.supply);
  let holders: Map<string, bigint> | undefined = await deps.chain.listTokenHolders(coin.airdropMint);
  const allocations = computeAllocations(holders, pool, {
    minBalance: minBalanceRaw(airdropInfo.decimals, MIN_BALANCE_WHOLE_TOKENS),
    excludeOwners: [coin.vaultAddress, coin.coinMint].filter((a): a is string => a !== null),
  });
  holders = undefined; // let the (possibly 1M-entry) map go before the tree is built
  if (allocations.count === 0) return { status: 'skipped', reason: 'no eligible holder' };
  const distribution = buildDistributionFromSorted(allocations.claimants, allocations.amounts);
  const root = distribution.tree.root.toString('hex');

  const current = await deps.getSummary(coinMint);
  if (current?.merkleRoot === root) return { status: 'unchanged', summary: current };
  const version = (current?.version ?? 0) + 1;
  const createdAt = deps.now().toISOString();
  const prefix = snapshotKeys.objectPrefix(coinMint, version, root);
  await deps.putObjects(
    serializeSnapshot(distribution, {
      prefix,
      version,
      mint: coinMint,
      airdropMint: coin.airdropMint,
      slot,
      createdAt,
    }),
  );
  const summary: SnapshotSummary = {
    coinMint,
    airdropMint: coin.airdropMint,
    gameId: coin.gameId,
    merkleRoot: root,
    holderCount: allocations.count,
    totalAllocation: distribution.totalUnlocked.toString(),
    pool: pool.toString(),
    slot,
    createdAt,
    version,
    prefix,
  };
  if (await deps.putSummaryIfNewer(summary)) {
    logger.info('snapshot created', { coinMint, version, root, holderCount: summary.holderCount });
    return { status: 'created', summary };
  }
  const winner = await deps.getSummary(coinMint);
  if (winner?.merkleRoot === root) return { status: 'unchanged', summary: winner };
  return { status: 'superseded', summary: winner };
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
