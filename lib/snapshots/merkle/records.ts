// Leaf records (the 48-byte pre-images claimant ‖ amount_unlocked u64 LE ‖ amount_locked u64 LE, stored
// as holders.bin) and their deterministic order: ascending claimant bytes, so the same holder set always
// gives the same root.
import { endianness } from 'node:os';
import { sortOrder } from '../../core/key-order.js';
import { assertU64, compare32, copy32, LEAF_RECORD_BYTES } from './hash.js';

export { sortOrder };

const LITTLE_ENDIAN = endianness() === 'LE';

function checkColumns(
  claimants: Uint8Array,
  amountsUnlocked: BigUint64Array | readonly bigint[],
  amountsLocked: BigUint64Array | readonly bigint[] | undefined,
  order: Uint32Array | undefined,
): void {
  const count = amountsUnlocked.length;
  if (claimants.length !== count * 32) {
    throw new RangeError(`claimants must be ${count} × 32 bytes, got ${claimants.length}`);
  }
  if (amountsLocked && amountsLocked.length !== count) throw new RangeError('amountsLocked length mismatch');
  if (order && order.length !== count) throw new RangeError('order length mismatch');
  // BigUint64Array inputs are u64 by construction; plain bigint arrays are range-checked (a typed store wraps).
  if (!(amountsUnlocked instanceof BigUint64Array)) {
    for (const v of amountsUnlocked) assertU64(v, 'amountUnlocked');
  }
  if (amountsLocked && !(amountsLocked instanceof BigUint64Array)) {
    for (const v of amountsLocked) assertU64(v, 'amountLocked');
  }
}

/**
 * Packs leaf records (claimant ‖ unlocked ‖ locked) into one Buffer of count × 48 bytes; record i is entry
 * `order[i]` when an order is given (e.g. from sortOrder), else entry i.
 */
export function encodeLeafRecords(
  claimants: Uint8Array,
  amountsUnlocked: BigUint64Array | readonly bigint[],
  amountsLocked?: BigUint64Array | readonly bigint[],
  order?: Uint32Array,
): Buffer {
  const count = amountsUnlocked.length;
  checkColumns(claimants, amountsUnlocked, amountsLocked, order);
  if (
    LITTLE_ENDIAN &&
    claimants.byteOffset % 4 === 0 &&
    amountsUnlocked instanceof BigUint64Array &&
    (amountsLocked === undefined || amountsLocked instanceof BigUint64Array)
  ) {
    return encodeAligned(claimants, amountsUnlocked, amountsLocked, order, count);
  }
  const records = Buffer.alloc(count * LEAF_RECORD_BYTES);
  for (let i = 0; i < count; i++) {
    const from = order ? (order[i] as number) : i;
    const o = i * LEAF_RECORD_BYTES;
    copy32(claimants, from * 32, records, o);
    records.writeBigUInt64LE(amountsUnlocked[from] as bigint, o + 32);
    records.writeBigUInt64LE(amountsLocked ? (amountsLocked[from] as bigint) : 0n, o + 40);
  }
  return records;
}

/**
 * encodeLeafRecords on 32-bit words (little-endian hosts, 4-aligned claimants, typed amounts): 12 word moves
 * per record and no BigInt materialised per amount.
 */
function encodeAligned(
  claimants: Uint8Array,
  amountsUnlocked: BigUint64Array,
  amountsLocked: BigUint64Array | undefined,
  order: Uint32Array | undefined,
  count: number,
): Buffer {
  const buffer = new ArrayBuffer(count * LEAF_RECORD_BYTES);
  const out = new Uint32Array(buffer);
  const keys = new Uint32Array(claimants.buffer, claimants.byteOffset, count * 8);
  const unlocked = new Uint32Array(amountsUnlocked.buffer, amountsUnlocked.byteOffset, count * 2);
  const locked = amountsLocked && new Uint32Array(amountsLocked.buffer, amountsLocked.byteOffset, count * 2);
  for (let i = 0; i < count; i++) {
    const from = order ? (order[i] as number) : i;
    const s = from * 8;
    const d = i * 12;
    for (let k = 0; k < 8; k++) out[d + k] = keys[s + k] as number;
    out[d + 8] = unlocked[2 * from] as number;
    out[d + 9] = unlocked[2 * from + 1] as number;
    if (locked) {
      out[d + 10] = locked[2 * from] as number;
      out[d + 11] = locked[2 * from + 1] as number;
    }
  }
  return Buffer.from(buffer);
}

/** Throws unless the claimants of `records` are strictly ascending (the leaf order, no duplicate). */
export function assertLeafOrder(records: Uint8Array): void {
  const count = records.length / LEAF_RECORD_BYTES;
  for (let i = 1; i < count; i++) {
    const c = compare32(records, (i - 1) * LEAF_RECORD_BYTES, records, i * LEAF_RECORD_BYTES);
    if (c === 0) throw new RangeError(`duplicate claimant at sorted position ${i}: aggregate entries first`);
    if (c > 0) throw new RangeError(`claimants are not ascending at position ${i}`);
  }
}
