// The WebAssembly SHA-256 kernel (lib/snapshots/sha256-wasm.ts, compiled from lib/snapshots/sha256-simd/
// sha256.ts by scripts/wasm.ts) against node:crypto: every message shape, every 4-lane remainder, batch
// boundaries, compare ties, unaligned and shared inputs; the bulk steps of merkle.ts with the kernel against
// their node:crypto versions; lazy loading; and the committed generated module against a fresh build.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  buildDistributionFromSorted,
  buildTree,
  HASH_BYTES,
  hashLeafRecords,
  hashLeafRecordsCrypto,
  LEAF_RECORD_BYTES,
  reduceLevel,
  reduceLevelCrypto,
  WASM_MIN_HASHES,
} from '../../lib/snapshots/merkle.js';
import {
  KERNEL_BATCH,
  loadedSha256Kernel,
  type Sha256Kernel,
  setSha256WasmEnabled,
  sha256Kernel,
  sha256WasmModule,
} from '../../lib/snapshots/sha256-wasm.js';
import { compileKernel, GENERATED_MODULE, generatedModule } from '../../scripts/wasm.js';

const sha = (...parts: Uint8Array[]): Buffer => createHash('sha256').update(Buffer.concat(parts)).digest();
const refLeaf = (record: Uint8Array): Buffer => sha(Buffer.of(0), sha(record));
const refNode = (a: Uint8Array, b: Uint8Array): Buffer =>
  Buffer.compare(a, b) <= 0 ? sha(Buffer.of(1), a, b) : sha(Buffer.of(1), b, a);

/** `bytes` copied to byte offset `offset` of a fresh buffer (ordinary or shared): an unaligned view. */
function at(bytes: Uint8Array, offset: number, shared = false): Buffer {
  const backing = Buffer.from(
    shared ? new SharedArrayBuffer(bytes.length + offset) : new ArrayBuffer(bytes.length + offset),
  );
  backing.set(bytes, offset);
  return backing.subarray(offset);
}

/** The kernel's leaf hashes, one reference hash per record. */
function expectLeaves(kernel: Sha256Kernel, records: Uint8Array, what: string): void {
  const count = records.length / LEAF_RECORD_BYTES;
  const out = Buffer.alloc(count * HASH_BYTES);
  kernel.hashLeafRecords(records, out);
  for (let i = 0; i < count; i++) {
    const expected = refLeaf(records.subarray(i * LEAF_RECORD_BYTES, (i + 1) * LEAF_RECORD_BYTES));
    expect(out.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES).toString('hex'), `${what}: leaf ${i}`).toBe(
      expected.toString('hex'),
    );
  }
}

/** The kernel's parents of `count` nodes, one reference hash per pair (the last of an odd level with itself). */
function expectNodes(kernel: Sha256Kernel, level: Uint8Array, count: number, what: string): void {
  const next = (count + 1) >>> 1;
  const out = Buffer.alloc(next * HASH_BYTES);
  kernel.reduceLevel(level, count, out);
  const node = (j: number) => level.subarray(j * HASH_BYTES, (j + 1) * HASH_BYTES);
  for (let i = 0; i < next; i++) {
    const expected = refNode(node(2 * i), node(2 * i + 1 < count ? 2 * i + 1 : 2 * i));
    expect(out.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES).toString('hex'), `${what}: node ${i}`).toBe(
      expected.toString('hex'),
    );
  }
}

afterEach(() => setSha256WasmEnabled(true));

describe('lazy loading', () => {
  const loaded = () => loadedSha256Kernel() !== undefined;
  /** n distinct claimants in ascending order (big-endian index in the first bytes) with amounts. */
  const sortedColumns = (n: number) => {
    const claimants = Buffer.alloc(n * 32);
    for (let i = 0; i < n; i++) claimants.writeUInt32BE(i + 1, i * 32);
    return { claimants, amounts: BigUint64Array.from({ length: n }, (_, i) => BigInt(i + 1)) };
  };

  // First in this file: vitest gives every test file a fresh module registry.
  it('importing merkle.ts loads nothing; bulk calls and small trees use node:crypto; a large tree loads it', () => {
    expect(loaded()).toBe(false);
    // hashLeafRecords / reduceLevel never load the kernel themselves (readProof re-hashes buckets with them).
    const large = randomBytes(2 * WASM_MIN_HASHES * LEAF_RECORD_BYTES);
    const leaves = hashLeafRecords(large);
    reduceLevel(leaves, leaves.length / HASH_BYTES);
    expect(loaded()).toBe(false);
    // A tree build below WASM_MIN_HASHES hashes does not either (3 hashes per leaf, 1 per leaf of buildTree).
    const small = sortedColumns(Math.floor((WASM_MIN_HASHES - 1) / 3));
    const smallRoot = buildDistributionFromSorted(small.claimants, small.amounts).tree.root;
    buildTree(leaves.subarray(0, WASM_MIN_HASHES * HASH_BYTES));
    expect(loaded()).toBe(false);
    // The first large tree build does; from then on every bulk call uses it, with the same bytes.
    const big = sortedColumns(Math.ceil(WASM_MIN_HASHES / 3));
    buildDistributionFromSorted(big.claimants, big.amounts);
    expect(loaded()).toBe(true);
    expect(hashLeafRecords(large).equals(leaves)).toBe(true);
    expect(buildDistributionFromSorted(small.claimants, small.amounts).tree.root.equals(smallRoot)).toBe(
      true,
    );
  });

  it('disabled (as without WebAssembly SIMD): no module, no kernel, node:crypto gives the same bytes', () => {
    const records = randomBytes(WASM_MIN_HASHES * LEAF_RECORD_BYTES);
    const leaves = hashLeafRecordsCrypto(records);
    const level = reduceLevelCrypto(leaves, leaves.length / HASH_BYTES);
    expect(sha256Kernel()).toBeDefined();
    setSha256WasmEnabled(false);
    expect(sha256WasmModule()).toBeUndefined();
    expect(sha256Kernel()).toBeUndefined();
    expect(loaded()).toBe(false);
    expect(hashLeafRecords(records).equals(leaves)).toBe(true);
    expect(buildTree(leaves).levels[1]?.equals(level)).toBe(true);
    setSha256WasmEnabled(true);
    expect(loaded()).toBe(true);
    expect(hashLeafRecords(records).equals(leaves)).toBe(true);
    expect(reduceLevel(leaves, leaves.length / HASH_BYTES).equals(level)).toBe(true);
  });
});

describe('the kernel against node:crypto', () => {
  const kernel = (): Sha256Kernel => {
    const k = sha256Kernel();
    if (!k) throw new Error('WebAssembly SIMD is unavailable in this Node.js');
    return k;
  };

  it('leaves (48-byte records, then 0x00 ‖ 32 bytes): every count 1..70 (all 4-lane remainders)', () => {
    for (let n = 1; n <= 70; n++) expectLeaves(kernel(), randomBytes(n * LEAF_RECORD_BYTES), `n=${n}`);
  });

  it('leaves: all-zero and all-0xff records, and counts around the batch size', () => {
    expectLeaves(kernel(), Buffer.alloc(5 * LEAF_RECORD_BYTES, 0), 'zeros');
    expectLeaves(kernel(), Buffer.alloc(5 * LEAF_RECORD_BYTES, 0xff), '0xff');
    for (const n of [KERNEL_BATCH - 1, KERNEL_BATCH, KERNEL_BATCH + 1, 2 * KERNEL_BATCH + 3]) {
      expectLeaves(kernel(), randomBytes(n * LEAF_RECORD_BYTES), `n=${n}`);
    }
  });

  it('nodes (0x01 ‖ min ‖ max, 65 bytes): every count 1..70, odd ones pairing the last node with itself', () => {
    for (let n = 1; n <= 70; n++) expectNodes(kernel(), randomBytes(n * HASH_BYTES), n, `n=${n}`);
  });

  it('nodes: counts around the batch size (the duplicated last node in a later batch)', () => {
    for (const n of [2 * KERNEL_BATCH - 1, 2 * KERNEL_BATCH, 2 * KERNEL_BATCH + 1, 4 * KERNEL_BATCH + 5]) {
      expectNodes(kernel(), randomBytes(n * HASH_BYTES), n, `n=${n}`);
    }
  });

  it('nodes: ties and near-ties — equal children, children differing only at byte k (both orders)', () => {
    const pairs: Buffer[] = [];
    const base = randomBytes(HASH_BYTES);
    pairs.push(Buffer.concat([base, base])); // equal
    pairs.push(Buffer.alloc(64, 0), Buffer.alloc(64, 0xff)); // equal, extreme bytes
    for (let k = 0; k < HASH_BYTES; k++) {
      for (const [x, y] of [
        [0x00, 0x01],
        [0x7f, 0x80], // a signed comparison would get these wrong
        [0xfe, 0xff],
        [0x01, 0xff],
      ] as const) {
        const a = Buffer.from(base);
        const b = Buffer.from(base);
        a[k] = x;
        b[k] = y;
        // Later bytes ordered the other way, so that only byte k decides.
        for (let j = k + 1; j < HASH_BYTES; j++) {
          a[j] = 0xff;
          b[j] = 0x00;
        }
        pairs.push(Buffer.concat([a, b]), Buffer.concat([b, a]));
      }
    }
    const level = Buffer.concat(pairs);
    const count = level.length / HASH_BYTES;
    expectNodes(kernel(), level, count, 'ties');
    expectNodes(kernel(), level, count - 1, 'ties, odd');
  });

  it('unaligned and SharedArrayBuffer-backed inputs and outputs', () => {
    for (const offset of [1, 2, 3, 5, 13]) {
      for (const shared of [false, true]) {
        const n = 37;
        const records = at(randomBytes(n * LEAF_RECORD_BYTES), offset, shared);
        const out = at(Buffer.alloc(n * HASH_BYTES), offset + 1, shared);
        kernel().hashLeafRecords(records, out);
        expect(out.equals(hashLeafRecordsCrypto(records)), `leaves +${offset} ${shared}`).toBe(true);
        expectNodes(kernel(), at(out, offset, shared), n, `nodes +${offset} ${shared}`);
      }
    }
  });
});

describe('merkle.ts bulk steps: kernel = node:crypto', () => {
  it('hashLeafRecords and reduceLevel, counts 1..70 and large odd counts, into given outputs', () => {
    expect(sha256Kernel()).toBeDefined(); // loaded: every size uses it
    for (const n of [...Array.from({ length: 70 }, (_, i) => i + 1), 4097, 100_003]) {
      const records = randomBytes(n * LEAF_RECORD_BYTES);
      const leaves = hashLeafRecordsCrypto(records);
      expect(hashLeafRecords(records).equals(leaves), `leaves n=${n}`).toBe(true);
      const into = Buffer.alloc(n * HASH_BYTES);
      expect(hashLeafRecords(records, into)).toBe(into);
      expect(into.equals(leaves), `leaves into n=${n}`).toBe(true);
      const parents = reduceLevelCrypto(leaves, n);
      expect(reduceLevel(leaves, n).equals(parents), `level n=${n}`).toBe(true);
    }
  });

  it('a whole tree of 100,003 leaves: every level equals the node:crypto levels', () => {
    const n = 100_003;
    const leaves = hashLeafRecords(randomBytes(n * LEAF_RECORD_BYTES));
    const tree = buildTree(leaves);
    let level: Buffer = leaves;
    for (let k = 1; k < tree.levels.length; k++) {
      level = reduceLevelCrypto(level, level.length / HASH_BYTES);
      expect(level.equals(tree.levels[k] as Buffer), `level ${k}`).toBe(true);
    }
    expect(level.length).toBe(HASH_BYTES);
  });

  it('keeps the size checks', () => {
    expect(() => hashLeafRecords(new Uint8Array(47))).toThrow(RangeError);
    expect(() => hashLeafRecords(new Uint8Array(48), Buffer.alloc(31))).toThrow(RangeError);
    expect(() => reduceLevel(Buffer.alloc(96), 3, Buffer.alloc(32))).toThrow(RangeError);
  });
});

describe('generated module', () => {
  it(`${GENERATED_MODULE} is byte-identical to a fresh deterministic build of the AssemblyScript source`, async () => {
    const first = await compileKernel();
    const second = await compileKernel();
    expect(Buffer.from(second).equals(Buffer.from(first))).toBe(true);
    const committed = readFileSync(new URL(`../../${GENERATED_MODULE}`, import.meta.url), 'utf8');
    expect(committed, 'stale: run `npm run generate`').toBe(generatedModule(first));
  }, 120_000);
});
