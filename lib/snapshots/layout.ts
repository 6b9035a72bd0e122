// Writes a built snapshot as its stored objects (format: layout/format.ts). The format and the readers are
// re-exported here for the module's callers.
import {
  DEFAULT_BUCKET_BITS,
  HOLDERS_OBJECT,
  HOLDERS_PAGE_SIZE,
  INDEX_HEADER_BYTES,
  INDEX_MAGIC,
  INDEX_OBJECT,
  levelCount,
  MANIFEST_OBJECT,
  normalisePrefix,
  SNAPSHOT_LAYOUT_VERSION,
  type SnapshotManifest,
  type StoredObject,
} from './layout/format.js';
import { type Distribution, LEAF_RECORD_BYTES } from './merkle.js';

export {
  type ByteRange,
  DEFAULT_BUCKET_BITS,
  type GetObject,
  HOLDERS_OBJECT,
  HOLDERS_PAGE_SIZE,
  INDEX_OBJECT,
  MANIFEST_OBJECT,
  SNAPSHOT_LAYOUT_VERSION,
  SnapshotCorruptError,
  type SnapshotManifest,
  type StoredObject,
} from './layout/format.js';
export { loadSnapshotIndex, parseSnapshotIndex, type SnapshotIndex } from './layout/index-file.js';
export {
  type HolderEntry,
  type HoldersPage,
  type ProofRecord,
  readHoldersPage,
  readManifest,
  readProof,
} from './layout/readers.js';

export interface SerializeOptions {
  /** Key prefix of this snapshot, e.g. `snapshots/<mint>/v3/`; a missing trailing slash is added. */
  prefix: string;
  version: number;
  mint?: string;
  airdropMint?: string;
  slot?: number;
  readSlots?: { first: number; last: number };
  createdAt?: string;
  bucketBits?: number;
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
    ...(options.readSlots === undefined ? {} : { readSlots: options.readSlots }),
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
