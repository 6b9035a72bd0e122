// Merkle trees in the convention of Jito's merkle-distributor (github.com/jito-foundation/distributor),
// so that a root built here can be installed in a distributor and every proof served here verifies with
// the on-chain `new_claim` instruction. Checked against these files of that repository:
//   - merkle-tree/src/tree_node.rs        TreeNode::hash = sha256(claimant(32) ‖ amount_unlocked u64 LE ‖
//                                         amount_locked u64 LE)
//   - merkle-tree/src/airdrop_merkle_tree.rs  the tree is built over those hashes with sorted_hashes = true
//   - merkle-tree/src/merkle_tree.rs      leaf = sha256(0x00 ‖ item); node = sha256(0x01 ‖ min ‖ max) (sorted pair,
//                                         byte-wise); the LAST node of an odd-length level is DUPLICATED (hashed
//                                         with itself, "Duplicate last entry if the level length is odd"), never
//                                         promoted; next level length = 1 ? stop : ceil(len / 2); a single leaf
//                                         is its own root; the proof of a duplicated node contains the node itself.
//   - verify/src/lib.rs (crate jito_merkle_verify, called by programs/merkle-distributor/src/instructions/
//                                         new_claim.rs) folds the proof: computed <= element ? H(1‖computed‖element)
//                                         : H(1‖element‖computed), then compares with the root.
//
// This file: the constants and hashes of that convention, per call (leafHash, nodeHash) and in bulk over
// contiguous buffers (hashLeafRecords, reduceLevel: what a tree build spends its time in). Hashing is
// node:crypto's: its one-shot `hash()` returning a 'binary' (latin1) string avoids allocating a Buffer per
// digest, which is what makes `createHash()` and `hash(…, 'buffer')` 2-3× slower; inputs are assembled in one
// reused scratch buffer.
import * as crypto from 'node:crypto';
import { compare32, copy32 } from '../../core/key-order.js';

export { compare32, copy32 };

export const HASH_BYTES = 32;
/** Bytes of the pre-image of a leaf: claimant(32) ‖ amount_unlocked u64 LE ‖ amount_locked u64 LE. */
export const LEAF_RECORD_BYTES = 48;
export const LEAF_PREFIX = 0x00;
export const NODE_PREFIX = 0x01;
/** Jito's AirdropMerkleTree rejects more than 2^32 - 1 nodes. */
export const MAX_LEAVES = 2 ** 32 - 1;
export const U64_MAX = (1n << 64n) - 1n;

type BinaryHash = (data: Uint8Array) => string;

/** sha256 of `data` as a latin1 ('binary') string of 32 chars: no Buffer allocated per digest. */
const sha256Binary: BinaryHash =
  typeof crypto.hash === 'function'
    ? (data) => crypto.hash('sha256', data, 'binary')
    : (data) => crypto.createHash('sha256').update(data).digest('binary');

/**
 * `Buffer#latin1Write` (internal to Node's `buf.write`, present on every Buffer but not in @types/node) is the
 * fastest way back from a 'binary' string; the documented `write(…, 'latin1')` is the fallback.
 */
interface Latin1Writable {
  latin1Write?: (value: string, offset: number, length?: number) => number;
}
const latin1Write: (target: Buffer, value: string, offset: number) => void =
  typeof (Buffer.prototype as Latin1Writable).latin1Write === 'function'
    ? (target, value, offset) => {
        (target as unknown as Required<Latin1Writable>).latin1Write(value, offset, HASH_BYTES);
      }
    : (target, value, offset) => {
        target.write(value, offset, HASH_BYTES, 'latin1');
      };

/** sha256(data) written into target[offset..offset+32) (the per-hash path of verifyProof). */
export function sha256Into(data: Uint8Array, target: Buffer, offset: number): void {
  latin1Write(target, sha256Binary(data), offset);
}

function sha256(...parts: Uint8Array[]): Buffer {
  const h = crypto.createHash('sha256');
  for (const part of parts) h.update(part);
  return h.digest();
}

/** Throws a RangeError unless `value` fits in a u64 (a typed store would wrap it). */
export function assertU64(value: bigint, what: string): void {
  if (value < 0n || value > U64_MAX) throw new RangeError(`${what} must fit in a u64, got ${value}`);
}

/** The 48-byte pre-image Jito's TreeNode::hash hashes. */
export function leafRecord(claimant: Uint8Array, amountUnlocked: bigint, amountLocked = 0n): Buffer {
  if (claimant.length !== 32) throw new RangeError(`claimant must be 32 bytes, got ${claimant.length}`);
  assertU64(amountUnlocked, 'amountUnlocked');
  assertU64(amountLocked, 'amountLocked');
  const record = Buffer.allocUnsafe(LEAF_RECORD_BYTES);
  record.set(claimant, 0);
  record.writeBigUInt64LE(amountUnlocked, 32);
  record.writeBigUInt64LE(amountLocked, 40);
  return record;
}

/** leaf = sha256(0x00 ‖ sha256(claimant ‖ amount_unlocked u64 LE ‖ amount_locked u64 LE)). */
export function leafHash(claimant: Uint8Array, amountUnlocked: bigint, amountLocked = 0n): Buffer {
  const inner = sha256(leafRecord(claimant, amountUnlocked, amountLocked));
  return sha256(Uint8Array.of(LEAF_PREFIX), inner);
}

/** Internal node = sha256(0x01 ‖ min(a, b) ‖ max(a, b)). */
export function nodeHash(a: Uint8Array, b: Uint8Array): Buffer {
  return compare32(a, 0, b, 0) <= 0
    ? sha256(Uint8Array.of(NODE_PREFIX), a, b)
    : sha256(Uint8Array.of(NODE_PREFIX), b, a);
}

function leafOutput(records: Uint8Array, into: Buffer | undefined): Buffer {
  if (records.length % LEAF_RECORD_BYTES !== 0) {
    throw new RangeError(`records length ${records.length} is not a multiple of ${LEAF_RECORD_BYTES}`);
  }
  const count = records.length / LEAF_RECORD_BYTES;
  const out = into ?? Buffer.allocUnsafe(count * HASH_BYTES);
  if (out.length !== count * HASH_BYTES) throw new RangeError('hashLeafRecords: output has the wrong size');
  return out;
}

/**
 * Leaf hashes of `records` (count × 48-byte pre-images) into one new Buffer of count × 32 bytes, or into
 * `into` (exactly count × 32 bytes): two sha256 calls per leaf, sha256(record), then sha256(0x00 ‖ that).
 */
export function hashLeafRecords(records: Uint8Array, into?: Buffer): Buffer {
  const out = leafOutput(records, into);
  const count = records.length / LEAF_RECORD_BYTES;
  const record = new Uint8Array(LEAF_RECORD_BYTES);
  const prefixed = Buffer.allocUnsafe(1 + HASH_BYTES);
  prefixed[0] = LEAF_PREFIX;
  if (records.byteOffset % 4 === 0) {
    // Same loop moving 12 words instead of 48 bytes into the scratch record.
    const words = new Uint32Array(records.buffer, records.byteOffset, records.length / 4);
    const record32 = new Uint32Array(record.buffer);
    for (let i = 0; i < count; i++) {
      const o = i * 12;
      for (let k = 0; k < 12; k++) record32[k] = words[o + k] as number;
      latin1Write(prefixed, sha256Binary(record), 1);
      latin1Write(out, sha256Binary(prefixed), i * HASH_BYTES);
    }
    return out;
  }
  for (let i = 0; i < count; i++) {
    const o = i * LEAF_RECORD_BYTES;
    for (let k = 0; k < LEAF_RECORD_BYTES; k++) record[k] = records[o + k] as number;
    latin1Write(prefixed, sha256Binary(record), 1);
    latin1Write(out, sha256Binary(prefixed), i * HASH_BYTES);
  }
  return out;
}

function levelOutput(count: number, into: Buffer | undefined): Buffer {
  const nextCount = (count + 1) >>> 1;
  const out = into ?? Buffer.allocUnsafe(nextCount * HASH_BYTES);
  if (out.length !== nextCount * HASH_BYTES) throw new RangeError('reduceLevel: output has the wrong size');
  return out;
}

/**
 * One level up: node i = H(0x01 ‖ sorted(prev[2i], prev[2i+1])), and when the level is odd its last node is
 * hashed with itself (Jito duplicates, it does not promote). Returns ceil(count / 2) nodes.
 */
export function reduceLevel(prev: Uint8Array, count: number, into?: Buffer): Buffer {
  const out = levelOutput(count, into);
  const nextCount = (count + 1) >>> 1;
  const input = Buffer.allocUnsafe(1 + 2 * HASH_BYTES);
  input[0] = NODE_PREFIX;
  for (let i = 0; i < nextCount; i++) {
    const a = 2 * i * HASH_BYTES;
    const b = 2 * i + 1 < count ? a + HASH_BYTES : a;
    let lo = a;
    let hi = b;
    for (let k = 0; k < HASH_BYTES; k++) {
      const x = prev[a + k] as number;
      const y = prev[b + k] as number;
      if (x !== y) {
        if (x > y) {
          lo = b;
          hi = a;
        }
        break;
      }
    }
    for (let k = 0; k < HASH_BYTES; k++) {
      input[1 + k] = prev[lo + k] as number;
      input[1 + HASH_BYTES + k] = prev[hi + k] as number;
    }
    latin1Write(out, sha256Binary(input), i * HASH_BYTES);
  }
  return out;
}
