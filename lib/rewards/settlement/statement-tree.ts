// The statements' merkle tree, portable: the same convention as the airdrop snapshots' tree (lib/snapshots/merkle:
// Jito's merkle-distributor, node = sha256(0x01 ‖ min ‖ max) over a byte-wise sorted pair, the last node of an odd
// level hashed with itself, a single leaf its own root), written over Uint8Array and WebCrypto's digest so the SDK
// bundles it for Node and browsers with no package at all. The snapshots' tree is tuned for a million leaves on
// node:crypto Buffers and can't leave Node; a statement has a few hundred leaves. tests/unit/payout-statement.test.ts
// builds both over the same leaves and compares every root and proof.

const NODE_PREFIX = 0x01;

/** sha256 of `data` (WebCrypto: Node 20+, browsers, workers). */
export const sha256 = async (data: Uint8Array): Promise<Uint8Array> =>
  new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', data as Uint8Array<ArrayBuffer>));

const compare = (a: Uint8Array, b: Uint8Array): number => {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number);
  return 0;
};

const node = (a: Uint8Array, b: Uint8Array): Promise<Uint8Array> => {
  const [low, high] = compare(a, b) <= 0 ? [a, b] : [b, a];
  const data = new Uint8Array(1 + low.length + high.length);
  data[0] = NODE_PREFIX;
  data.set(low, 1);
  data.set(high, 1 + low.length);
  return sha256(data);
};

/** Every level of the tree, leaves first; the last level holds the root alone. */
export const treeLevels = async (leaves: readonly Uint8Array[]): Promise<Uint8Array[][]> => {
  if (leaves.length === 0) throw new RangeError('a merkle tree needs at least one leaf');
  const levels: Uint8Array[][] = [[...leaves]];
  for (let level = levels[0] as Uint8Array[]; level.length > 1; ) {
    const pairs: Array<Promise<Uint8Array>> = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i] as Uint8Array;
      pairs.push(node(left, level[i + 1] ?? left));
    }
    const next = await Promise.all(pairs);
    levels.push(next);
    level = next;
  }
  return levels;
};

/** The root of a tree's levels. */
export const rootOf = (levels: readonly Uint8Array[][]): Uint8Array =>
  (levels[levels.length - 1] as Uint8Array[])[0] as Uint8Array;

/** The proof of leaf `index`: its sibling at each level, leaves up (a node without one is its own sibling). */
export const proofOf = (levels: readonly Uint8Array[][], index: number): Uint8Array[] => {
  const proof: Uint8Array[] = [];
  let at = index;
  for (const level of levels.slice(0, -1)) {
    proof.push((level[at ^ 1] ?? level[at]) as Uint8Array);
    at >>= 1;
  }
  return proof;
};

/** Whether `leaf` folds up `proof` to `root`. */
export const foldsTo = async (
  leaf: Uint8Array,
  proof: readonly Uint8Array[],
  root: Uint8Array,
): Promise<boolean> => {
  let hash = leaf;
  for (const sibling of proof) hash = await node(hash, sibling);
  return hash.length === root.length && compare(hash, root) === 0;
};

/** Lowercase hex of bytes, and back (the strings have been checked as 64 hex characters by the callers). */
export const toHex = (bytes: Uint8Array): string =>
  Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
export const fromHex = (hex: string): Uint8Array =>
  Uint8Array.from({ length: hex.length / 2 }, (_, i) => Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16));
