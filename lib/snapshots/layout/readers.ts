// Reads of a stored snapshot (layout/format.ts): one holder's proof, a holders page, the manifest. The objects
// come through an injected getObject.
//
// Proof of a claimant = 2 object reads: index.bin (binary search of the fences gives the bucket), then one
// ranged read of that bucket's ≤ 2^h records from holders.bin (binary search gives the leaf). The bucket's
// subtree (≤ 2^(h+1) hashes, ~1 ms) is recomputed and must equal the stored bucket root, so corrupt or
// mismatched objects are detected, not served; the rest of the proof comes from index.bin. A warm caller may
// cache the parsed index (loadSnapshotIndex) and then needs 1 read per proof.
// A holders page = 2 reads: manifest.json and one ranged read of holders.bin.
import { decodeAddress, encodeAddress } from '../allocation.js';
import { HASH_BYTES, hashLeafRecords, LEAF_RECORD_BYTES, reduceLevel } from '../merkle.js';
import {
  asBuffer,
  type GetObject,
  HOLDERS_OBJECT,
  MANIFEST_OBJECT,
  normalisePrefix,
  SNAPSHOT_LAYOUT_VERSION,
  SnapshotCorruptError,
  type SnapshotManifest,
} from './format.js';
import { loadSnapshotIndex, type SnapshotIndex } from './index-file.js';

export async function readManifest(
  prefix: string,
  getObject: GetObject,
): Promise<SnapshotManifest | undefined> {
  const bytes = await getObject(`${normalisePrefix(prefix)}${MANIFEST_OBJECT}`);
  if (bytes === undefined) return undefined;
  const manifest = JSON.parse(asBuffer(bytes).toString('utf8')) as SnapshotManifest;
  if (manifest.format !== 'arcadia-merkle-snapshot' || manifest.layoutVersion !== SNAPSHOT_LAYOUT_VERSION) {
    throw new SnapshotCorruptError('manifest.json: unsupported format');
  }
  return manifest;
}

function decodeClaimant(claimant: string | Uint8Array): Buffer | undefined {
  if (typeof claimant !== 'string') return claimant.length === 32 ? asBuffer(claimant) : undefined;
  const bytes = Buffer.allocUnsafe(32);
  return decodeAddress(claimant, bytes) ? bytes : undefined;
}

/** Largest i in [0, count) with key(i) ≤ target, or -1. */
function searchLastAtMost(table: Buffer, stride: number, count: number, target: Buffer): number {
  let lo = 0;
  let hi = count - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    // Sign of (key at mid) − target.
    const c = table.compare(target, 0, 32, mid * stride, mid * stride + 32);
    if (c <= 0) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found;
}

export interface ProofRecord {
  /** Leaf index in the tree. */
  index: number;
  /** Base58 claimant. */
  claimant: string;
  /** amount_unlocked, raw units, decimal string. */
  amount: string;
  /** amount_locked (always "0" for Arcadia airdrops), decimal string. */
  amountLocked: string;
  /** Sibling hashes from the leaf up, hex (64 chars each). */
  proof: string[];
  /** Hex root. */
  root: string;
}

/**
 * The proof of `claimant` (base58 or 32 bytes) in the snapshot under `prefix`: ≤ 2 reads (1 with `index`
 * from loadSnapshotIndex). Undefined when the snapshot does not exist or the claimant is not in it.
 * Throws SnapshotCorruptError when the stored objects do not hash to the stored root.
 */
export async function readProof(
  prefix: string,
  claimant: string | Uint8Array,
  getObject: GetObject,
  index?: SnapshotIndex,
): Promise<ProofRecord | undefined> {
  const key = decodeClaimant(claimant);
  if (!key) return undefined;
  const snapshot = index ?? (await loadSnapshotIndex(prefix, getObject));
  if (!snapshot) return undefined;
  const { holderCount, bucketBits, bucketCount, fences, topLevels } = snapshot;

  const bucket = searchLastAtMost(fences, 32, bucketCount, key);
  if (bucket < 0) return undefined;
  const bucketSize = 2 ** bucketBits;
  const first = bucket * bucketSize;
  const count = Math.min(bucketSize, holderCount - first);
  const start = first * LEAF_RECORD_BYTES;
  const bytes = await getObject(`${snapshot.prefix}${HOLDERS_OBJECT}`, {
    start,
    end: start + count * LEAF_RECORD_BYTES - 1,
  });
  if (bytes === undefined) throw new SnapshotCorruptError('holders.bin is missing');
  const records = asBuffer(bytes);
  if (records.length !== count * LEAF_RECORD_BYTES) throw new SnapshotCorruptError('holders.bin: short read');
  if (!records.subarray(0, 32).equals(fences.subarray(bucket * 32, bucket * 32 + 32))) {
    throw new SnapshotCorruptError(`holders.bin: bucket ${bucket} does not start at its fence`);
  }
  const local = searchLastAtMost(records, LEAF_RECORD_BYTES, count, key);
  const o = local * LEAF_RECORD_BYTES;
  if (local < 0 || !records.subarray(o, o + 32).equals(key)) return undefined;

  // Rebuild the bucket's subtree (levels 0..bucketBits, Jito's duplicate-last rule at every level, exactly as
  // in the full tree) and check it against the stored bucket root.
  const proof: string[] = [];
  let level = hashLeafRecords(records);
  let levelLength = count;
  let j = local;
  for (let k = 0; k < bucketBits; k++) {
    const sibling = (j ^ 1) < levelLength ? j ^ 1 : j;
    proof.push(level.toString('hex', sibling * HASH_BYTES, sibling * HASH_BYTES + HASH_BYTES));
    level = reduceLevel(level, levelLength);
    levelLength = (levelLength + 1) >>> 1;
    j >>>= 1;
  }
  const storedBucketRoot = (topLevels[0] as Buffer).subarray(
    bucket * HASH_BYTES,
    bucket * HASH_BYTES + HASH_BYTES,
  );
  if (levelLength !== 1 || !level.equals(storedBucketRoot)) {
    throw new SnapshotCorruptError(`holders.bin: bucket ${bucket} does not hash to its stored root`);
  }
  j = bucket;
  for (let i = 0; i < topLevels.length - 1; i++) {
    const top = topLevels[i] as Buffer;
    const length = top.length / HASH_BYTES;
    const sibling = (j ^ 1) < length ? j ^ 1 : j;
    proof.push(top.toString('hex', sibling * HASH_BYTES, sibling * HASH_BYTES + HASH_BYTES));
    j >>>= 1;
  }
  return {
    index: first + local,
    claimant: encodeAddress(key),
    amount: records.readBigUInt64LE(o + 32).toString(),
    amountLocked: records.readBigUInt64LE(o + 40).toString(),
    proof,
    root: snapshot.root.toString('hex'),
  };
}

export interface HolderEntry {
  index: number;
  address: string;
  /** amount_unlocked, raw units, decimal string. */
  amount: string;
}

export interface HoldersPage {
  /** 1-based page number. */
  page: number;
  pageSize: number;
  pageCount: number;
  holderCount: number;
  totalAllocation: string;
  root: string;
  version: number;
  holders: HolderEntry[];
}

/**
 * Page `page` (1-based, HOLDERS_PAGE_SIZE holders in leaf order) of the snapshot under `prefix`: 2 reads
 * (manifest.json, one ranged read of holders.bin; 1 when the page is past the end). Undefined when the
 * snapshot does not exist.
 */
export async function readHoldersPage(
  prefix: string,
  page: number,
  getObject: GetObject,
): Promise<HoldersPage | undefined> {
  if (!Number.isInteger(page) || page < 1) throw new RangeError(`page must be an integer ≥ 1, got ${page}`);
  const manifest = await readManifest(prefix, getObject);
  if (!manifest) return undefined;
  const pageSize = manifest.pageSize;
  const first = (page - 1) * pageSize;
  const count = Math.max(0, Math.min(pageSize, manifest.holderCount - first));
  const holders: HolderEntry[] = [];
  if (count > 0) {
    const start = first * LEAF_RECORD_BYTES;
    const bytes = await getObject(`${normalisePrefix(prefix)}${HOLDERS_OBJECT}`, {
      start,
      end: start + count * LEAF_RECORD_BYTES - 1,
    });
    if (bytes === undefined) throw new SnapshotCorruptError('holders.bin is missing');
    const records = asBuffer(bytes);
    if (records.length !== count * LEAF_RECORD_BYTES)
      throw new SnapshotCorruptError('holders.bin: short read');
    for (let i = 0; i < count; i++) {
      const o = i * LEAF_RECORD_BYTES;
      holders.push({
        index: first + i,
        address: encodeAddress(records, o),
        amount: records.readBigUInt64LE(o + 32).toString(),
      });
    }
  }
  return {
    page,
    pageSize,
    pageCount: manifest.pageCount,
    holderCount: manifest.holderCount,
    totalAllocation: manifest.totalAllocation,
    root: manifest.root,
    version: manifest.version,
    holders,
  };
}
