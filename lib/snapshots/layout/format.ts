// Object-storage layout of a built snapshot (pure: the caller injects getObject / does the PUTs). Written by
// layout.ts; index.bin is parsed by layout/index-file.ts, the other reads are in layout/readers.ts.
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
// index.bin format (little endian):
//   0  8  magic "ARCSNIX1"     8  u32 layout version (1)   12 u32 holderCount n   16 u8 depth
//   17 u8 h (bucket height)    18 u16 0                    20 u32 bucketCount B   24 32 root
//   56 B × 32 fences           then for k = h..depth: ceil(n / 2^k) × 32 node hashes of level k

export const SNAPSHOT_LAYOUT_VERSION = 1;
export const HOLDERS_PAGE_SIZE = 1000;
/** Leaves per bucket = 2^10: a proof reads ≤ 48 KB of holders.bin and re-hashes ≤ 3k times. */
export const DEFAULT_BUCKET_BITS = 10;

export const MANIFEST_OBJECT = 'manifest.json';
export const INDEX_OBJECT = 'index.bin';
export const HOLDERS_OBJECT = 'holders.bin';

export const INDEX_MAGIC = 'ARCSNIX1';
export const INDEX_HEADER_BYTES = 56;

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
  /** Context slots of the first and last page of the holder read. */
  readSlots?: { first: number; last: number };
  createdAt?: string;
}

/** The prefix with its trailing slash (none for the empty prefix). */
export function normalisePrefix(prefix: string): string {
  return prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`;
}

/** Nodes at level k of a tree of `leafCount` leaves. */
export function levelCount(leafCount: number, k: number): number {
  return Math.ceil(leafCount / 2 ** k);
}

export class SnapshotCorruptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SnapshotCorruptError';
  }
}

/** `bytes` as a Buffer, without a copy. */
export function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
}
