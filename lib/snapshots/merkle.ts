// Airdrop distributions as Jito merkle-distributor trees: entries or columns (claimant, amounts) → sorted
// 48-byte leaf records → leaf hashes → tree. The parts, re-exported here for the module's callers:
//   merkle/hash.ts     the convention (prefixes, sorted pairs, duplicate-last) and its hashes, per call and bulk
//   merkle/tree.ts     tree levels, proofs, verification
//   merkle/records.ts  leaf records and their order
//
// Speed: one node:crypto call per hash (2 per leaf, 1 per internal node), one thread: 1M holders take
// ~1.3-1.6 s, in a background job with a 900 s budget. A WebAssembly SIMD kernel and worker threads were
// tried and removed (docs/changelog.md, 2026-11-25; the current figures in docs/merkle.md §4, bench/merkle.ts).
import { assertU64, hashLeafRecords, LEAF_RECORD_BYTES } from './merkle/hash.js';
import { assertLeafOrder, encodeLeafRecords, sortOrder } from './merkle/records.js';
import { buildTree, type MerkleTree } from './merkle/tree.js';

export {
  compare32,
  copy32,
  HASH_BYTES,
  hashLeafRecords,
  LEAF_PREFIX,
  LEAF_RECORD_BYTES,
  leafHash,
  leafRecord,
  MAX_LEAVES,
  NODE_PREFIX,
  nodeHash,
  reduceLevel,
  U64_MAX,
} from './merkle/hash.js';
export { assertLeafOrder, encodeLeafRecords, sortOrder } from './merkle/records.js';
export {
  buildTree,
  type MerkleTree,
  proofFor,
  treeDepth,
  treeNodeCount,
  verifyProof,
} from './merkle/tree.js';

export interface DistributionEntry {
  claimant: Uint8Array;
  amountUnlocked: bigint;
  amountLocked?: bigint;
}

export interface Distribution {
  /** count × 48-byte leaf pre-images, ascending by claimant: record i is leaf i. */
  readonly records: Buffer;
  readonly tree: MerkleTree;
  readonly totalUnlocked: bigint;
  readonly totalLocked: bigint;
}

/**
 * Sorts entries by claimant bytes (deterministic leaf order: the same set always gives the same root),
 * rejects duplicate claimants (aggregate first), hashes the leaves and builds the tree.
 */
export function buildDistribution(entries: readonly DistributionEntry[]): Distribution {
  const count = entries.length;
  const claimants = Buffer.allocUnsafe(count * 32);
  const unlocked = new BigUint64Array(count);
  const locked = new BigUint64Array(count);
  entries.forEach((entry, i) => {
    if (entry.claimant.length !== 32) throw new RangeError(`claimant ${i} is not 32 bytes`);
    claimants.set(entry.claimant, i * 32);
    assertU64(entry.amountUnlocked, 'amountUnlocked');
    assertU64(entry.amountLocked ?? 0n, 'amountLocked');
    unlocked[i] = entry.amountUnlocked;
    locked[i] = entry.amountLocked ?? 0n;
  });
  return buildDistributionFromColumns(claimants, unlocked, locked);
}

/** Columns (count × 32-byte claimants, amounts) in any order: sorted by claimant bytes, then built. */
export function buildDistributionFromColumns(
  claimants: Uint8Array,
  amountsUnlocked: BigUint64Array,
  amountsLocked?: BigUint64Array,
): Distribution {
  const order = sortOrder(claimants, amountsUnlocked.length);
  return distributionOf(
    encodeLeafRecords(claimants, amountsUnlocked, amountsLocked, order),
    amountsUnlocked,
    amountsLocked,
  );
}

/** Columns already ascending by claimant (e.g. computeAllocations output). */
export function buildDistributionFromSorted(
  claimants: Uint8Array,
  amountsUnlocked: BigUint64Array,
  amountsLocked?: BigUint64Array,
): Distribution {
  return distributionOf(
    encodeLeafRecords(claimants, amountsUnlocked, amountsLocked),
    amountsUnlocked,
    amountsLocked,
  );
}

function distributionOf(
  records: Buffer,
  amountsUnlocked: BigUint64Array,
  amountsLocked?: BigUint64Array,
): Distribution {
  assertLeafOrder(records);
  const tree = buildTree(hashLeafRecords(records));
  const count = records.length / LEAF_RECORD_BYTES;
  let totalUnlocked = 0n;
  let totalLocked = 0n;
  for (let i = 0; i < count; i++) totalUnlocked += amountsUnlocked[i] as bigint;
  if (amountsLocked) for (let i = 0; i < count; i++) totalLocked += amountsLocked[i] as bigint;
  return { records, tree, totalUnlocked, totalLocked };
}
