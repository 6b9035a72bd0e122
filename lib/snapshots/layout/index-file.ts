// index.bin of a stored snapshot (format: layout/format.ts): parsed once per snapshot, checked against its
// root, and cacheable per prefix (objects are immutable).

import { HASH_BYTES, reduceLevel, treeDepth } from '../merkle.js';
import {
  asBuffer,
  type GetObject,
  INDEX_HEADER_BYTES,
  INDEX_MAGIC,
  INDEX_OBJECT,
  levelCount,
  normalisePrefix,
  SNAPSHOT_LAYOUT_VERSION,
  SnapshotCorruptError,
} from './format.js';

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
