// SHA-256 of four messages at once, one message per 32-bit lane of 128-bit WebAssembly SIMD vectors
// ("multi-buffer" SHA-256), for the fixed message shapes of the Jito merkle tree of ../merkle.ts:
//
//   leaves(src, dst, n): sha256(0x00 ‖ sha256(record)), record = 48 bytes (2 compressions per leaf)
//   nodes(src, dst, n):  sha256(0x01 ‖ min(a, b) ‖ max(a, b)), a, b = 32 bytes, byte-wise order (2 compressions)
//
// This is AssemblyScript, compiled by scripts/wasm.ts (`npm run generate`) into
// ../sha256-wasm.generated.ts; tsc and Biome do not read it. Design and measurements: docs/merkle.md §4.
//
// Layout: a lane vector holds word t of four messages; the message schedule W[0..63] and the chaining value
// live in small static areas of linear memory. Callers pass batches in linear memory (src, dst) and always
// get groups of four: ceil(n / 4) × 4 inputs are read and as many digests written.

// Round constants (FIPS 180-4 §4.2.2).
const K: usize = memory.data<u32>([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
// Initial hash value H(0) (§5.3.3).
const IV: usize = memory.data<u32>([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);
// Message schedule of the four lanes: W[t] at W + 16 t (the caller fills W[0..15]).
const W: usize = memory.data(64 * 16, 16);
// Chaining value after the last compression: word j of the four lanes at S + 16 j.
const S: usize = memory.data(8 * 16, 16);
// nodes(): the children of four nodes, big-endian word k at X + 16 k (k < 8: first child, 8..15: second).
const X: usize = memory.data(16 * 16, 16);

// @ts-ignore: decorator
@inline function add(a: v128, b: v128): v128 {
  return i32x4.add(a, b);
}

// Rotation by a constant (the shifts become immediates once inlined).
// @ts-ignore: decorator
@inline function rotr(x: v128, n: i32): v128 {
  return v128.or(i32x4.shr_u(x, n), i32x4.shl(x, 32 - n));
}

// @ts-ignore: decorator
@inline function bigSigma0(x: v128): v128 {
  return v128.xor(v128.xor(rotr(x, 2), rotr(x, 13)), rotr(x, 22));
}

// @ts-ignore: decorator
@inline function bigSigma1(x: v128): v128 {
  return v128.xor(v128.xor(rotr(x, 6), rotr(x, 11)), rotr(x, 25));
}

// @ts-ignore: decorator
@inline function smallSigma0(x: v128): v128 {
  return v128.xor(v128.xor(rotr(x, 7), rotr(x, 18)), i32x4.shr_u(x, 3));
}

// @ts-ignore: decorator
@inline function smallSigma1(x: v128): v128 {
  return v128.xor(v128.xor(rotr(x, 17), rotr(x, 19)), i32x4.shr_u(x, 10));
}

/** Σ1(e) + Ch(e, f, g) + K[t] + W[t]: T1 of round t without h. */
// @ts-ignore: decorator
@inline function t1(e: v128, f: v128, g: v128, t: usize): v128 {
  const ch = v128.xor(v128.and(v128.xor(f, g), e), g);
  const kw = add(v128.load32_splat(K + (t << 2)), v128.load(W + (t << 4)));
  return add(add(bigSigma1(e), ch), kw);
}

/**
 * One compression of the four lanes: the message block W[0..15] (filled by the caller), the chaining value
 * at `init` (the IV, one u32 per word, when `fromIV`; else 8 lane vectors, e.g. S itself), the result
 * (chaining value + compressed state) into S.
 */
function compress(init: usize, fromIV: bool): void {
  let a: v128, b: v128, c: v128, d: v128, e: v128, f: v128, g: v128, h: v128;
  if (fromIV) {
    a = v128.load32_splat(init, 0);
    b = v128.load32_splat(init, 4);
    c = v128.load32_splat(init, 8);
    d = v128.load32_splat(init, 12);
    e = v128.load32_splat(init, 16);
    f = v128.load32_splat(init, 20);
    g = v128.load32_splat(init, 24);
    h = v128.load32_splat(init, 28);
  } else {
    a = v128.load(init, 0);
    b = v128.load(init, 16);
    c = v128.load(init, 32);
    d = v128.load(init, 48);
    e = v128.load(init, 64);
    f = v128.load(init, 80);
    g = v128.load(init, 96);
    h = v128.load(init, 112);
  }
  const a0 = a, b0 = b, c0 = c, d0 = d, e0 = e, f0 = f, g0 = g, h0 = h;
  // Eight rounds per iteration, the roles of a..h rotating instead of the values moving. Round t:
  //   T1 = h + Σ1(e) + Ch(e, f, g) + K[t] + W[t];  d += T1;  h = T1 + Σ0(a) + Maj(a, b, c)
  // with Maj(a, b, c) = b ^ ((a ^ b) & (b ^ c)), where this round's a ^ b is the next round's b ^ c.
  let bc = v128.xor(b, c);
  let ab: v128;
  for (let t: usize = 0; t < 64; t += 8) {
    if (t < 48) {
      // The schedule 16 rounds ahead, interleaved with the rounds (independent work for the CPU):
      // W[s + 16] = σ1(W[s + 14]) + W[s + 9] + σ0(W[s + 1]) + W[s] for s = t..t+7, read from p = &W[s].
      for (let s = t; s < t + 8; s++) {
        const p = W + (s << 4);
        const w = add(
          add(smallSigma1(v128.load(p, 14 * 16)), v128.load(p, 9 * 16)),
          add(smallSigma0(v128.load(p, 1 * 16)), v128.load(p, 0)),
        );
        v128.store(p, w, 16 * 16);
      }
    }
    let x = add(h, t1(e, f, g, t));
    d = add(d, x);
    ab = v128.xor(a, b);
    h = add(x, add(bigSigma0(a), v128.xor(b, v128.and(ab, bc))));
    x = add(g, t1(d, e, f, t + 1));
    c = add(c, x);
    bc = v128.xor(h, a);
    g = add(x, add(bigSigma0(h), v128.xor(a, v128.and(bc, ab))));
    x = add(f, t1(c, d, e, t + 2));
    b = add(b, x);
    ab = v128.xor(g, h);
    f = add(x, add(bigSigma0(g), v128.xor(h, v128.and(ab, bc))));
    x = add(e, t1(b, c, d, t + 3));
    a = add(a, x);
    bc = v128.xor(f, g);
    e = add(x, add(bigSigma0(f), v128.xor(g, v128.and(bc, ab))));
    x = add(d, t1(a, b, c, t + 4));
    h = add(h, x);
    ab = v128.xor(e, f);
    d = add(x, add(bigSigma0(e), v128.xor(f, v128.and(ab, bc))));
    x = add(c, t1(h, a, b, t + 5));
    g = add(g, x);
    bc = v128.xor(d, e);
    c = add(x, add(bigSigma0(d), v128.xor(e, v128.and(bc, ab))));
    x = add(b, t1(g, h, a, t + 6));
    f = add(f, x);
    ab = v128.xor(c, d);
    b = add(x, add(bigSigma0(c), v128.xor(d, v128.and(ab, bc))));
    x = add(a, t1(f, g, h, t + 7));
    e = add(e, x);
    bc = v128.xor(b, c);
    a = add(x, add(bigSigma0(b), v128.xor(c, v128.and(bc, ab))));
  }
  v128.store(S, add(a, a0), 0);
  v128.store(S, add(b, b0), 16);
  v128.store(S, add(c, c0), 32);
  v128.store(S, add(d, d0), 48);
  v128.store(S, add(e, e0), 64);
  v128.store(S, add(f, f0), 80);
  v128.store(S, add(g, g0), 96);
  v128.store(S, add(h, h0), 112);
}

/** Reverses the bytes of each 32-bit word (big-endian message words ⇄ little-endian lanes). */
// @ts-ignore: decorator
@inline function bswap(x: v128): v128 {
  return v128.shuffle<u8>(x, x, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12);
}

/**
 * 16 bytes of each of four messages (row r = lane r, at src + r × stride) to four lane vectors at dst
 * (vector i = big-endian word i of every lane): a 4 × 4 transpose of 32-bit words, then a byte swap.
 */
// @ts-ignore: decorator
@inline function loadWords(src: usize, stride: usize, dst: usize): void {
  const r0 = v128.load(src);
  const r1 = v128.load(src + stride);
  const r2 = v128.load(src + 2 * stride);
  const r3 = v128.load(src + 3 * stride);
  const t0 = v128.shuffle<u32>(r0, r1, 0, 4, 1, 5);
  const t1 = v128.shuffle<u32>(r0, r1, 2, 6, 3, 7);
  const t2 = v128.shuffle<u32>(r2, r3, 0, 4, 1, 5);
  const t3 = v128.shuffle<u32>(r2, r3, 2, 6, 3, 7);
  v128.store(dst, bswap(v128.shuffle<u64>(t0, t2, 0, 2)), 0);
  v128.store(dst, bswap(v128.shuffle<u64>(t0, t2, 1, 3)), 16);
  v128.store(dst, bswap(v128.shuffle<u64>(t1, t3, 0, 2)), 32);
  v128.store(dst, bswap(v128.shuffle<u64>(t1, t3, 1, 3)), 48);
}

/** The inverse of loadWords for four state words at src (16 apart): 16 bytes per lane at dst + 32 r. */
// @ts-ignore: decorator
@inline function storeWords(src: usize, dst: usize): void {
  const c0 = v128.load(src, 0);
  const c1 = v128.load(src, 16);
  const c2 = v128.load(src, 32);
  const c3 = v128.load(src, 48);
  const t0 = v128.shuffle<u32>(c0, c1, 0, 4, 1, 5);
  const t1 = v128.shuffle<u32>(c0, c1, 2, 6, 3, 7);
  const t2 = v128.shuffle<u32>(c2, c3, 0, 4, 1, 5);
  const t3 = v128.shuffle<u32>(c2, c3, 2, 6, 3, 7);
  v128.store(dst, bswap(v128.shuffle<u64>(t0, t2, 0, 2)), 0);
  v128.store(dst, bswap(v128.shuffle<u64>(t0, t2, 1, 3)), 32);
  v128.store(dst, bswap(v128.shuffle<u64>(t1, t3, 0, 2)), 64);
  v128.store(dst, bswap(v128.shuffle<u64>(t1, t3, 1, 3)), 96);
}

/** (prev << 24) | (next >>> 8): message word k when the message is shifted by one prefix byte. */
// @ts-ignore: decorator
@inline function shifted(prev: v128, next: v128): v128 {
  return v128.or(i32x4.shl(prev, 24), i32x4.shr_u(next, 8));
}

/** The final word of a message that ends one byte into it: that byte, then the 0x80 padding byte. */
// @ts-ignore: decorator
@inline function lastByteThenPad(prev: v128): v128 {
  return v128.or(i32x4.shl(prev, 24), i32x4.splat(0x00800000));
}

/** W[from..14] = 0 and W[15] = the message length in bits (the rest of a final padded block). */
// @ts-ignore: decorator
@inline function padTail(from: usize, bits: i32): void {
  for (let k = from; k < 15; k++) v128.store(W + (k << 4), i32x4.splat(0));
  v128.store(W + 15 * 16, i32x4.splat(bits));
}

/**
 * Leaf hashes of n 48-byte records at src: sha256(0x00 ‖ sha256(record)) to dst, 32 bytes per leaf.
 * Reads and writes ceil(n / 4) × 4 of them.
 */
export function leaves(src: usize, dst: usize, n: usize): void {
  for (let i: usize = 0; i < n; i += 4) {
    const p = src + i * 48;
    // sha256(record): one block, W[0..11] = the record, W[12] = the 0x80 padding byte, length 384 bits.
    loadWords(p, 48, W);
    loadWords(p + 16, 48, W + 4 * 16);
    loadWords(p + 32, 48, W + 8 * 16);
    v128.store(W + 12 * 16, i32x4.splat(<i32>0x80000000));
    padTail(13, 384);
    compress(IV, true);
    // sha256(0x00 ‖ inner): 33 bytes, one block: the digest words shifted by the prefix byte, length 264.
    let prev = i32x4.splat(0x00);
    for (let k: usize = 0; k < 8; k++) {
      const next = v128.load(S + (k << 4));
      v128.store(W + (k << 4), shifted(prev, next));
      prev = next;
    }
    v128.store(W + 8 * 16, lastByteThenPad(prev));
    padTail(9, 264);
    compress(IV, true);
    storeWords(S, dst + i * 32);
    storeWords(S + 4 * 16, dst + i * 32 + 16);
  }
}

/**
 * Internal nodes of n pairs of 32-byte children at src (node i's children at src + 64 i, src + 64 i + 32):
 * sha256(0x01 ‖ min ‖ max) in byte-wise (lexicographic) order to dst, 32 bytes per node. Reads and writes
 * ceil(n / 4) × 4 of them.
 */
export function nodes(src: usize, dst: usize, n: usize): void {
  for (let i: usize = 0; i < n; i += 4) {
    const p = src + i * 64;
    loadWords(p, 64, X);
    loadWords(p + 16, 64, X + 4 * 16);
    loadWords(p + 32, 64, X + 8 * 16);
    loadWords(p + 48, 64, X + 12 * 16);
    // Lanes whose first child is greater (all ones): big-endian words compare like the bytes, so decide
    // on the first unequal word, scanning from the last word to the first.
    let swap = i32x4.gt_u(v128.load(X, 7 * 16), v128.load(X, 15 * 16));
    for (let k: isize = 6; k >= 0; k--) {
      const x = v128.load(X + (k << 4));
      const y = v128.load(X + (k << 4), 8 * 16);
      swap = v128.bitselect(swap, i32x4.gt_u(x, y), i32x4.eq(x, y));
    }
    // First block: m = min ‖ max (16 words) behind the 0x01 prefix byte: W[k] = (m[k-1] << 24) | (m[k] >>> 8).
    let prev = i32x4.splat(0x01);
    for (let k: usize = 0; k < 16; k++) {
      const x = v128.load(X + ((k & 7) << 4));
      const y = v128.load(X + ((k & 7) << 4), 8 * 16);
      const next = k < 8 ? v128.bitselect(y, x, swap) : v128.bitselect(x, y, swap);
      v128.store(W + (k << 4), shifted(prev, next));
      prev = next;
    }
    compress(IV, true);
    // Second block: the last byte of max, the 0x80 padding byte, zeros, length 520 bits.
    v128.store(W, lastByteThenPad(prev));
    padTail(1, 520);
    compress(S, false);
    storeWords(S, dst + i * 32);
    storeWords(S + 4 * 16, dst + i * 32 + 16);
  }
}

/** The first free byte after the static data (16-aligned): callers put their batches from there. */
export function heap(): usize {
  return (__heap_base + 15) & ~15;
}
