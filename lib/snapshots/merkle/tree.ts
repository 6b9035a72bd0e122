// The merkle tree over leaf hashes (Jito's merkle_tree.rs, see merkle/hash.ts): build, proofs, verification.
//
// Layout in memory: every level is ONE contiguous Buffer of count × 32 bytes (levels[0] = leaves,
// levels[depth] = the 32-byte root). 1,000,000 leaves take 32 MB of leaves plus ~32 MB of upper levels.
import { compare32, HASH_BYTES, MAX_LEAVES, NODE_PREFIX, reduceLevel, sha256Into } from './hash.js';

export interface MerkleTree {
  /** The 32-byte root (a view of levels[depth]). */
  readonly root: Buffer;
  /** levels[0] = leaf hashes (leafCount × 32 bytes), levels[k] = ceil(leafCount / 2^k) nodes, last = root. */
  readonly levels: readonly Buffer[];
  readonly leafCount: number;
  /** Number of hashes in every proof (= levels.length - 1). */
  readonly depth: number;
}

function packLeaves(leaves: Buffer | readonly Uint8Array[]): Buffer {
  if (Buffer.isBuffer(leaves)) {
    if (leaves.length % HASH_BYTES !== 0) {
      throw new RangeError(`leaves length ${leaves.length} is not a multiple of ${HASH_BYTES}`);
    }
    return leaves;
  }
  const list = leaves as readonly Uint8Array[];
  const packed = Buffer.allocUnsafe(list.length * HASH_BYTES);
  list.forEach((leaf, i) => {
    if (leaf.length !== HASH_BYTES) throw new RangeError(`leaf ${i} is ${leaf.length} bytes, expected 32`);
    packed.set(leaf, i * HASH_BYTES);
  });
  return packed;
}

/**
 * Builds the tree over leaf hashes, given either as ONE contiguous Buffer of n × 32 bytes (used as level 0
 * without copying) or as an array of 32-byte hashes (packed into one Buffer first).
 */
export function buildTree(leaves: Buffer | readonly Uint8Array[]): MerkleTree {
  const level0 = packLeaves(leaves);
  const leafCount = level0.length / HASH_BYTES;
  if (leafCount === 0) throw new RangeError('a merkle tree needs at least one leaf');
  if (leafCount > MAX_LEAVES) throw new RangeError(`at most ${MAX_LEAVES} leaves, got ${leafCount}`);
  // All upper levels share ONE allocation: one large external allocation instead of `depth` of them, each
  // of which can push V8 into a full (mark-compact) GC of whatever else the process holds.
  const storage = Buffer.allocUnsafeSlow(Math.max(0, (treeNodeCount(leafCount) - leafCount) * HASH_BYTES));
  const levels: Buffer[] = [level0];
  let count = leafCount;
  let level = level0;
  let offset = 0;
  while (count > 1) {
    const nextCount = (count + 1) >>> 1;
    level = reduceLevel(level, count, storage.subarray(offset, offset + nextCount * HASH_BYTES));
    offset += nextCount * HASH_BYTES;
    count = nextCount;
    levels.push(level);
  }
  return { root: level.subarray(0, HASH_BYTES), levels, leafCount, depth: levels.length - 1 };
}

/** Number of nodes of all levels, leaves included. */
export function treeNodeCount(leafCount: number): number {
  let total = leafCount;
  for (let count = leafCount; count > 1; count = (count + 1) >>> 1) total += (count + 1) >>> 1;
  return total;
}

/** Depth (proof length) of a tree of `leafCount` leaves: ceil(log2(leafCount)). */
export function treeDepth(leafCount: number): number {
  let depth = 0;
  for (let count = leafCount; count > 1; count = (count + 1) >>> 1) depth++;
  return depth;
}

/**
 * Proof of leaf `index`: one sibling per level from the leaves up. The sibling of the last node of an odd
 * level is the node itself (Jito's find_path does the same), so every proof has exactly `depth` hashes.
 */
export function proofFor(levels: readonly Buffer[], index: number): Buffer[] {
  const leaves = levels[0];
  if (!leaves) throw new RangeError('empty tree');
  const leafCount = leaves.length / HASH_BYTES;
  if (!Number.isInteger(index) || index < 0 || index >= leafCount) {
    throw new RangeError(`leaf index ${index} out of range 0..${leafCount - 1}`);
  }
  const depth = levels.length - 1;
  const out = Buffer.allocUnsafe(depth * HASH_BYTES);
  const proof: Buffer[] = [];
  let j = index;
  for (let k = 0; k < depth; k++) {
    const level = levels[k] as Buffer;
    const count = level.length / HASH_BYTES;
    const sibling = (j ^ 1) < count ? j ^ 1 : j;
    level.copy(out, k * HASH_BYTES, sibling * HASH_BYTES, sibling * HASH_BYTES + HASH_BYTES);
    proof.push(out.subarray(k * HASH_BYTES, k * HASH_BYTES + HASH_BYTES));
    j >>>= 1;
  }
  return proof;
}

/** Folds `proof` onto `leaf` with sorted pairs and compares with `root` (jito_merkle_verify::verify). */
export function verifyProof(leaf: Uint8Array, proof: readonly Uint8Array[], root: Uint8Array): boolean {
  if (leaf.length !== HASH_BYTES || root.length !== HASH_BYTES) return false;
  const input = Buffer.allocUnsafe(1 + 2 * HASH_BYTES);
  input[0] = NODE_PREFIX;
  const computed = Buffer.from(leaf);
  for (const element of proof) {
    if (element.length !== HASH_BYTES) return false;
    if (compare32(computed, 0, element, 0) <= 0) {
      input.set(computed, 1);
      input.set(element, 1 + HASH_BYTES);
    } else {
      input.set(element, 1);
      input.set(computed, 1 + HASH_BYTES);
    }
    sha256Into(input, computed, 0);
  }
  return compare32(computed, 0, root, 0) === 0;
}
