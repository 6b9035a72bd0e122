// Whether 32 bytes are an ed25519 public key (a point on the curve) or not (a program-derived address: a program's
// vault, a pool, an escrow). Same rule as the Solana runtime (curve25519-dalek's CompressedEdwardsY::decompress):
// y is the low 255 bits reduced mod p, and the point exists iff x² = (y² − 1) / (d·y² + 1) has a root, i.e. iff
// u·v is 0 or a quadratic residue (v is never 0: −1/d is not a square).
//
// kit's isOffCurveAddress answers the same with a square root (one 252-bit exponentiation: ~125–165 µs a key on
// this VM, 20 000 random keys) after a base58 decode; the Jacobi symbol below takes ~17–19 µs on the same keys,
// with the same answers: a 1M-holder snapshot spends ~18 s on the check instead of ~2.5 min.
// tests/unit/ed25519-curve.test.ts checks it against kit's on random keys, keypairs and PDAs.

const P = 2n ** 255n - 19n;
const LOW_255 = 2n ** 255n - 1n;

const reduce = (x: bigint): bigint => {
  // 2^255 ≡ 19 (mod p): fold the high part twice, then at most one subtraction.
  let r = (x & LOW_255) + 19n * (x >> 255n);
  r = (r & LOW_255) + 19n * (r >> 255n);
  return r >= P ? r - P : r;
};

const power = (base: bigint, exponent: bigint): bigint => {
  let result = 1n;
  let b = base;
  for (let e = exponent; e > 0n; e >>= 1n) {
    if (e & 1n) result = reduce(result * b);
    b = reduce(b * b);
  }
  return result;
};

/** d = −121665 / 121666 mod p. */
const D = reduce((P - 121_665n) * power(121_666n, P - 2n));

/** Jacobi symbol (a / n) for odd n > 0, with the low zero bits stripped 32 at a time. */
const jacobi = (value: bigint, modulus: bigint): number => {
  let a = value % modulus;
  let n = modulus;
  let t = 1;
  while (a !== 0n) {
    const low = Number(a & 0xffff_ffffn);
    if (low === 0) {
      a >>= 32n; // an even number of halvings: the sign is unchanged
      continue;
    }
    const zeros = 31 - Math.clz32(low & -low);
    if (zeros > 0) {
      a >>= BigInt(zeros);
      const r = Number(n & 7n);
      if ((zeros & 1) === 1 && (r === 3 || r === 5)) t = -t;
    }
    [a, n] = [n, a];
    if ((a & 3n) === 3n && (n & 3n) === 3n) t = -t;
    a %= n;
  }
  return n === 1n ? t : 0;
};

/** Whether bytes[offset..offset+32) decode to a point of ed25519 (false: an off-curve address, e.g. a PDA). */
export const isOnCurve = (bytes: Uint8Array, offset = 0): boolean => {
  let y = BigInt((bytes[offset + 31] as number) & 0x7f);
  for (let i = 30; i >= 0; i--) y = (y << 8n) | BigInt(bytes[offset + i] as number);
  if (y >= P) y -= P;
  const y2 = reduce(y * y);
  const u = y2 === 0n ? P - 1n : y2 - 1n;
  const v = reduce(D * y2 + 1n);
  const uv = reduce(u * v);
  return uv === 0n || jacobi(uv, P) === 1;
};
