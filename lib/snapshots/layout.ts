// Object-storage layout of a built snapshot (pure: the caller injects getObject / does the PUTs).
//
// Three objects under a per-snapshot prefix (e.g. `snapshots/<mint>/v<version>/`):
//
//   holders.bin    n × 48 bytes, the leaf pre-images in leaf order (ascending claimant bytes):
//                  claimant(32) ‖ amount_unlocked u64 LE ‖ amount_locked u64 LE. Record i is leaf i, so
//                  sha256(record) is exactly Jito's TreeNode::hash and no other copy of the leaves is stored.
//   index.bin      header, the first claimant of every bucket of 2^h consecutive leaves ("fences"), and the
//                  tree levels h..depth (level h = the bucket roots; last = root). A few tens of KB at 1M.
//   manifest.json  root, holderCount, totalAllocation, depth, version, … (written last).
//
// Proof of a claimant = 2 object reads: index.bin (binary search of the fences gives the bucket), then one
// ranged read of that bucket's ≤ 2^h records from holders.bin (binary search gives the leaf). The bucket's
// subtree (≤ 2^(h+1) hashes, ~1 ms) is recomputed and must equal the stored bucket root, so corrupt or
// mismatched objects are detected, not served; the rest of the proof comes from index.bin. A warm caller may
// cache the parsed index (loadSnapshotIndex) and then needs 1 read per proof.
// A holders page = 2 reads: manifest.json and one ranged read of holders.bin.
//
// index.bin format (little endian):
//   0  8  magic "ARCSNIX1"     8  u32 layout version (1)   12 u32 holderCount n   16 u8 depth
//   17 u8 h (bucket height)    18 u16 0                    20 u32 bucketCount B   24 32 root
//   56 B × 32 fences           then for k = h..depth: ceil(n / 2^k) × 32 node hashes of level k
import { decodeAddress, encodeAddress } from './allocation.js';
import {
  type Distribution,
  HASH_BYTES,
  hashLeafRecords,
  LEAF_RECORD_BYTES,
  reduceLevel,
  treeDepth,
} from './merkle.js';

export const SNAPSHOT_LAYOUT_VERSION = 1;
export const HOLDERS_PAGE_SIZE = 1000;
/** Leaves per bucket = 2^10: a proof reads ≤ 48 KB of holders.bin and re-hashes ≤ 3k times. */
export const DEFAULT_BUCKET_BITS = 10;

export const MANIFEST_OBJECT = 'manifest.json';
export const INDEX_OBJECT = 'index.bin';
export const HOLDERS_OBJECT = 'holders.bin';

const INDEX_MAGIC = 'ARCSNIX1';
const INDEX_HEADER_BYTES = 56;

export interface StoredObject {
  key: string;
  body: Buffer;
  contentType: string;
}

/** Inclusive byte range, as in an HTTP `Range: bytes=start-end` header. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Reads an object (or the inclusive byte range of it). Resolves undefined when the object does not exist
 * (S3 NoSuchKey); other failures reject.
 */
export type GetObject = (key: string, range?: ByteRange) => Promise<Uint8Array | undefined>;

export interface SnapshotManifest {
  format: 'arcadia-merkle-snapshot';
  layoutVersion: number;
  /** Snapshot version (monotonic per mint; a newer one supersedes an older one). */
  version: number;
  /** Hex (64 chars) merkle root. */
  root: string;
  holderCount: number;
  /** Decimal string: Σ amount_unlocked (+ amount_locked) of all leaves, raw units. */
  totalAllocation: string;
  depth: number;
  bucketBits: number;
  bucketCount: number;
  pageSize: number;
  pageCount: number;
  recordBytes: number;
  convention: 'jito-merkle-distributor';
  objects: { index: string; holders: string };
  mint?: string;
  airdropMint?: string;
  slot?: number;
  createdAt?: string;
}

export interface SerializeOptions {
  /** Key prefix of this snapshot, e.g. `snapshots/<mint>/v3/`; a missing trailing slash is added. */
  prefix: string;
  version: number;
  mint?: string;
  airdropMint?: string;
  slot?: number;
  createdAt?: string;
  bucketBits?: number;
}

function normalisePrefix(prefix: string): string {
  return prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`;
}

function levelCount(leafCount: number, k: number): number {
  return Math.ceil(leafCount / 2 ** k);
}

/**
 * Objects to PUT for a built snapshot, in write order: holders.bin and index.bin first, manifest.json last
 * (its presence marks a complete snapshot). Deterministic: the same distribution and options give the same
 * bytes. holders.bin is `distribution.records` itself (no copy).
 */
export function serializeSnapshot(distribution: Distribution, options: SerializeOptions): StoredObject[] {
  const prefix = normalisePrefix(options.prefix);
  const { records, tree } = distribution;
  const n = tree.leafCount;
  if (records.length !== n * LEAF_RECORD_BYTES) throw new RangeError('records do not match the tree');
  const bucketBitsOption = options.bucketBits ?? DEFAULT_BUCKET_BITS;
  if (!Number.isInteger(bucketBitsOption) || bucketBitsOption < 0 || bucketBitsOption > 20) {
    throw new RangeError('bucketBits must be an integer in 0..20');
  }
  const depth = tree.depth;
  const h = Math.min(bucketBitsOption, depth);
  const bucketCount = levelCount(n, h);

  let topBytes = 0;
  for (let k = h; k <= depth; k++) topBytes += (tree.levels[k] as Buffer).length;
  const index = Buffer.alloc(INDEX_HEADER_BYTES + bucketCount * 32 + topBytes);
  index.write(INDEX_MAGIC, 0, 'latin1');
  index.writeUInt32LE(SNAPSHOT_LAYOUT_VERSION, 8);
  index.writeUInt32LE(n, 12);
  index.writeUInt8(depth, 16);
  index.writeUInt8(h, 17);
  index.writeUInt32LE(bucketCount, 20);
  tree.root.copy(index, 24);
  let offset = INDEX_HEADER_BYTES;
  for (let b = 0; b < bucketCount; b++) {
    const first = b * 2 ** h * LEAF_RECORD_BYTES;
    records.copy(index, offset, first, first + 32);
    offset += 32;
  }
  for (let k = h; k <= depth; k++) {
    const level = tree.levels[k] as Buffer;
    level.copy(index, offset);
    offset += level.length;
  }

  const totalAllocation = distribution.totalUnlocked + distribution.totalLocked;
  const manifest: SnapshotManifest = {
    format: 'arcadia-merkle-snapshot',
    layoutVersion: SNAPSHOT_LAYOUT_VERSION,
    version: options.version,
    root: tree.root.toString('hex'),
    holderCount: n,
    totalAllocation: totalAllocation.toString(),
    depth,
    bucketBits: h,
    bucketCount,
    pageSize: HOLDERS_PAGE_SIZE,
    pageCount: Math.ceil(n / HOLDERS_PAGE_SIZE),
    recordBytes: LEAF_RECORD_BYTES,
    convention: 'jito-merkle-distributor',
    objects: { index: INDEX_OBJECT, holders: HOLDERS_OBJECT },
    ...(options.mint === undefined ? {} : { mint: options.mint }),
    ...(options.airdropMint === undefined ? {} : { airdropMint: options.airdropMint }),
    ...(options.slot === undefined ? {} : { slot: options.slot }),
    ...(options.createdAt === undefined ? {} : { createdAt: options.createdAt }),
  };
  return [
    { key: `${prefix}${HOLDERS_OBJECT}`, body: records, contentType: 'application/octet-stream' },
    { key: `${prefix}${INDEX_OBJECT}`, body: index, contentType: 'application/octet-stream' },
    {
      key: `${prefix}${MANIFEST_OBJECT}`,
      body: Buffer.from(`${JSON.stringify(manifest)}\n`),
      contentType: 'application/json',
    },
  ];
}

// ---------------------------------------------------------------------------------------------------------
// Readers

export class SnapshotCorruptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SnapshotCorruptError';
  }
}

export interface SnapshotIndex {
  readonly prefix: string;
  readonly holderCount: number;
  readonly depth: number;
  readonly bucketBits: number;
  readonly bucketCount: number;
  readonly root: Buffer;
  readonly fences: Buffer;
  /** topLevels[i] = tree level bucketBits + i. */
  readonly topLevels: readonly Buffer[];
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}

/** Parses index.bin and checks that its top levels hash up to its root. */
export function parseSnapshotIndex(prefix: string, bytes: Uint8Array): SnapshotIndex {
  const buf = asBuffer(bytes);
  if (buf.length < INDEX_HEADER_BYTES || buf.toString('latin1', 0, 8) !== INDEX_MAGIC) {
    throw new SnapshotCorruptError('index.bin: bad magic');
  }
  const layoutVersion = buf.readUInt32LE(8);
  if (layoutVersion !== SNAPSHOT_LAYOUT_VERSION) {
    throw new SnapshotCorruptError(`index.bin: unsupported layout version ${layoutVersion}`);
  }
  const holderCount = buf.readUInt32LE(12);
  const depth = buf.readUInt8(16);
  const bucketBits = buf.readUInt8(17);
  const bucketCount = buf.readUInt32LE(20);
  const root = buf.subarray(24, 56);
  if (
    holderCount === 0 ||
    depth !== treeDepth(holderCount) ||
    bucketBits > depth ||
    bucketCount !== levelCount(holderCount, bucketBits)
  ) {
    throw new SnapshotCorruptError('index.bin: inconsistent header');
  }
  let offset = INDEX_HEADER_BYTES;
  const fences = buf.subarray(offset, offset + bucketCount * 32);
  offset += bucketCount * 32;
  const topLevels: Buffer[] = [];
  for (let k = bucketBits; k <= depth; k++) {
    const bytesAtLevel = levelCount(holderCount, k) * HASH_BYTES;
    topLevels.push(buf.subarray(offset, offset + bytesAtLevel));
    offset += bytesAtLevel;
  }
  if (offset !== buf.length) throw new SnapshotCorruptError('index.bin: bad length');
  for (let i = 1; i < topLevels.length; i++) {
    const below = topLevels[i - 1] as Buffer;
    const expected = reduceLevel(below, below.length / HASH_BYTES);
    if (!expected.equals(topLevels[i] as Buffer)) {
      throw new SnapshotCorruptError(`index.bin: level ${bucketBits + i} does not hash from the level below`);
    }
  }
  if (!(topLevels[topLevels.length - 1] as Buffer).equals(root)) {
    throw new SnapshotCorruptError('index.bin: root mismatch');
  }
  return {
    prefix: normalisePrefix(prefix),
    holderCount,
    depth,
    bucketBits,
    bucketCount,
    root,
    fences,
    topLevels,
  };
}

/** Reads and parses index.bin (1 read); undefined when the snapshot does not exist. Cacheable per prefix. */
export async function loadSnapshotIndex(
  prefix: string,
  getObject: GetObject,
): Promise<SnapshotIndex | undefined> {
  const bytes = await getObject(`${normalisePrefix(prefix)}${INDEX_OBJECT}`);
  return bytes === undefined ? undefined : parseSnapshotIndex(prefix, bytes);
}

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
