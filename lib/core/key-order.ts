// 32-byte keys (public keys) in byte order: the leaf order of snapshot trees and the order holders are aggregated
// in. Shared by lib/chain and lib/snapshots.

/** Copies 32 bytes (a JS loop beats a native call per key at this size). */
export function copy32(src: Uint8Array, srcOffset: number, dst: Uint8Array, dstOffset: number): void {
  for (let k = 0; k < 32; k++) dst[dstOffset + k] = src[srcOffset + k] as number;
}

/** Sign of (32 bytes of a at aOffset) − (32 bytes of b at bOffset), byte-wise. */
export function compare32(a: Uint8Array, aOffset: number, b: Uint8Array, bOffset: number): number {
  for (let k = 0; k < 32; k++) {
    const x = a[aOffset + k] as number;
    const y = b[bOffset + k] as number;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/**
 * Order of `claimants` (count × 32 bytes) ascending by bytes: returns indices. Packs (top bits of the key,
 * index) below 2^53 into a Float64Array and sorts it natively, then re-sorts the rare runs whose top bits
 * tie by full byte comparison: ~10× faster than a comparator sort over a million keys.
 */
export function sortOrder(claimants: Uint8Array, count: number): Uint32Array {
  if (claimants.length < count * 32) throw new RangeError('claimants buffer too short');
  const indexBits = Math.max(1, Math.ceil(Math.log2(count + 1)));
  const keyBits = Math.min(32, 53 - indexBits);
  const shift = 32 - keyBits;
  const indexScale = 2 ** indexBits;
  const keys = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const o = i * 32;
    const top =
      (((claimants[o] as number) << 24) |
        ((claimants[o + 1] as number) << 16) |
        ((claimants[o + 2] as number) << 8) |
        (claimants[o + 3] as number)) >>>
      0;
    keys[i] = (top >>> shift) * indexScale + i;
  }
  keys.sort();
  const order = new Uint32Array(count);
  const prefix = new Uint32Array(count);
  for (let i = 0; i < count; i++) {
    const key = keys[i] as number;
    const hi = Math.floor(key / indexScale);
    order[i] = key - hi * indexScale;
    prefix[i] = hi;
  }
  const compare = (x: number, y: number) => compare32(claimants, x * 32, claimants, y * 32);
  for (let start = 0; start < count; ) {
    let end = start + 1;
    while (end < count && prefix[end] === prefix[start]) end++;
    if (end - start > 1) order.subarray(start, end).sort(compare);
    start = end;
  }
  return order;
}
