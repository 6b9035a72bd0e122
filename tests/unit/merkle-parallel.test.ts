// The multi-threaded tree build (lib/snapshots/merkle-parallel.ts) against the single-thread one of merkle.ts:
// byte-identical levels, root and proofs for sizes around the chunk and alignment boundaries, and worker
// failures reported (and the workers stopped). Small thresholds and chunks are forced through the options so
// that the worker source is exercised on small trees. The reference is the node:crypto one-thread build; the
// parallel build runs with the WebAssembly kernel (default) and, in one test, with it disabled (the workers'
// node:crypto loops).
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  buildDistributionFromColumns,
  buildDistributionFromSorted,
  buildTree,
  HASH_BYTES,
  hashLeafRecords,
  hashLeafRecordsCrypto,
  LEAF_RECORD_BYTES,
  type MerkleTree,
  proofFor,
  reduceLevelCrypto,
  sortOrder,
  verifyProof,
} from '../../lib/snapshots/merkle.js';
import {
  buildDistributionFromColumnsAsync,
  buildDistributionFromSortedAsync,
  buildTreeFromRecords,
  defaultThreads,
  PARALLEL_THRESHOLD,
  type ParallelOptions,
  parallelPlan,
} from '../../lib/snapshots/merkle-parallel.js';
import { setSha256WasmEnabled, sha256Kernel } from '../../lib/snapshots/sha256-wasm.js';

/** The one-thread tree with node:crypto only. */
function single(records: Uint8Array): MerkleTree {
  const levels = [hashLeafRecordsCrypto(records)];
  for (let level = levels[0] as Buffer; level.length > HASH_BYTES; ) {
    level = reduceLevelCrypto(level, level.length / HASH_BYTES);
    levels.push(level);
  }
  const root = (levels.at(-1) as Buffer).subarray(0, HASH_BYTES);
  return { root, levels, leafCount: records.length / LEAF_RECORD_BYTES, depth: levels.length - 1 };
}
const hex = (buffers: readonly Uint8Array[]) => buffers.map((b) => Buffer.from(b).toString('hex'));

/** Levels, root, depth and a sample of proofs (all when small) of `tree` equal those of `expected`. */
function expectSameTree(tree: MerkleTree, expected: MerkleTree, what: string): void {
  expect(tree.leafCount, what).toBe(expected.leafCount);
  expect(tree.depth, what).toBe(expected.depth);
  expect(tree.levels.length, what).toBe(expected.levels.length);
  tree.levels.forEach((level, k) => {
    expect(level.equals(expected.levels[k] as Buffer), `${what}: level ${k}`).toBe(true);
  });
  expect(tree.root.equals(expected.root), what).toBe(true);
  const n = tree.leafCount;
  const sample =
    n <= 70 ? Array.from({ length: n }, (_, i) => i) : [0, 1, 2, n >>> 1, n - 3, n - 2, n - 1, 1023, 1024];
  const leaves = tree.levels[0] as Buffer;
  for (const i of sample.filter((i) => i < n)) {
    const proof = proofFor(tree.levels, i);
    expect(hex(proof), `${what}: proof ${i}`).toEqual(hex(proofFor(expected.levels, i)));
    expect(verifyProof(leaves.subarray(i * 32, i * 32 + 32), proof, tree.root), `${what}: verify ${i}`).toBe(
      true,
    );
  }
}

/** Threads of this process (Linux), to see that workers stop. */
const threadCount = (): number | undefined =>
  existsSync('/proc/self/task') ? readdirSync('/proc/self/task').length : undefined;

async function eventually(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

describe('parallelPlan', () => {
  it('uses one thread below the threshold, for one leaf, or with one thread; ≥ 2 aligned chunks otherwise', () => {
    expect(parallelPlan(PARALLEL_THRESHOLD - 1, { threads: 4 })).toBeUndefined();
    expect(parallelPlan(1, { threshold: 0, threads: 4 })).toBeUndefined();
    expect(parallelPlan(1_000_000, { threads: 1 })).toBeUndefined();
    expect(parallelPlan(1_000_000, { threads: 1, mainThread: false })?.workers).toBe(1);
    const atThreshold = parallelPlan(PARALLEL_THRESHOLD, { threads: 2 });
    expect(atThreshold).toMatchObject({ threads: 2, workers: 1 });
    const million = parallelPlan(1_000_000, { threads: 6 });
    expect(million).toMatchObject({ threads: 6, workers: 5, chunkBits: 14, chunkCount: 62 });
    // Forced chunk sizes are capped so that there are at least two chunks; threads are capped at the chunks.
    expect(parallelPlan(5, { threshold: 0, threads: 8, chunkBits: 10 })).toMatchObject({
      chunkBits: 2,
      chunkCount: 2,
      threads: 2,
      workers: 1,
    });
    expect(parallelPlan(2, { threshold: 0, threads: 2, chunkBits: 5 })).toMatchObject({
      chunkBits: 0,
      chunkCount: 2,
    });
  });

  it('defaultThreads: all cores off Lambda; on Lambda the vCPUs its memory pays for (1,769 MB each)', () => {
    expect(defaultThreads({}, 8)).toBe(8);
    expect(defaultThreads({ AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024' }, 2)).toBe(1);
    expect(defaultThreads({ AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '2048' }, 2)).toBe(1);
    expect(defaultThreads({ AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '3538' }, 3)).toBe(2);
    expect(defaultThreads({ AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '10240' }, 6)).toBe(6);
    expect(defaultThreads({ AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '10240' }, 4)).toBe(4);
  });
});

describe('buildTreeFromRecords: parallel = single thread', () => {
  it('sizes around 8-leaf chunks (2^k ± 1, odd tails, a 1-leaf tail), workers only and with the main thread', async () => {
    const sizes = [2, 3, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 32, 33, 63, 64, 65, 127, 129];
    for (const n of sizes) {
      const records = randomBytes(n * LEAF_RECORD_BYTES);
      const expected = single(records);
      const variants: ParallelOptions[] = [
        { threshold: 0, threads: 2, chunkBits: 3, mainThread: false },
        { threshold: 0, threads: 3, chunkBits: 3 },
      ];
      for (const options of variants) {
        expectSameTree(
          await buildTreeFromRecords(records, options),
          expected,
          `n=${n} ${JSON.stringify(options)}`,
        );
      }
    }
  });

  it('the one-thread build with the kernel equals the node:crypto reference', () => {
    expect(sha256Kernel()).toBeDefined(); // loaded from here on (these trees are too small to load it)
    for (const n of [1, 2, 5, 100, 4099]) {
      const records = randomBytes(n * LEAF_RECORD_BYTES);
      expectSameTree(buildTree(hashLeafRecords(records)), single(records), `n=${n}`);
    }
  });

  it('with the WebAssembly kernel disabled (the workers hash with node:crypto), and enabled again', async () => {
    const n = 77;
    const records = randomBytes(n * LEAF_RECORD_BYTES);
    const expected = single(records);
    try {
      for (const enabled of [false, true]) {
        setSha256WasmEnabled(enabled);
        for (const mainThread of [false, true]) {
          const options = { threshold: 0, threads: 2, chunkBits: 3, mainThread };
          expectSameTree(await buildTreeFromRecords(records, options), expected, `${enabled} ${mainThread}`);
        }
      }
    } finally {
      setSha256WasmEnabled(true);
    }
  });

  it('chunk heights 0..6 on odd and power-of-two counts', async () => {
    for (const n of [97, 128]) {
      const records = randomBytes(n * LEAF_RECORD_BYTES);
      const expected = single(records);
      for (let chunkBits = 0; chunkBits <= 6; chunkBits++) {
        const options = { threshold: 0, threads: 2, chunkBits, mainThread: chunkBits % 2 === 0 };
        expectSameTree(await buildTreeFromRecords(records, options), expected, `n=${n} K=${chunkBits}`);
      }
    }
  });

  it('more workers than chunks, and records not backed by a SharedArrayBuffer (copied) or at an odd offset', async () => {
    const n = 41;
    const backing = Buffer.alloc(n * LEAF_RECORD_BYTES + 1);
    randomBytes(n * LEAF_RECORD_BYTES).copy(backing, 1);
    const unaligned = backing.subarray(1);
    const expected = single(unaligned);
    const options = { threshold: 0, threads: 8, chunkBits: 4, mainThread: false };
    expectSameTree(await buildTreeFromRecords(unaligned, options), expected, 'unaligned, 8 workers');
  });

  it('default chunking at threshold − 1 (single thread), threshold and threshold + 1 (parallel)', async () => {
    const records = randomBytes((PARALLEL_THRESHOLD + 1) * LEAF_RECORD_BYTES);
    for (const n of [PARALLEL_THRESHOLD - 1, PARALLEL_THRESHOLD, PARALLEL_THRESHOLD + 1]) {
      const part = records.subarray(0, n * LEAF_RECORD_BYTES);
      const options = { threads: 2 };
      expect(parallelPlan(n, options) === undefined, `n=${n}`).toBe(n < PARALLEL_THRESHOLD);
      expectSameTree(await buildTreeFromRecords(part, options), single(part), `n=${n}`);
    }
  });

  it('rejects empty and malformed records like buildTree', async () => {
    await expect(buildTreeFromRecords(new Uint8Array(0))).rejects.toThrow(RangeError);
    await expect(buildTreeFromRecords(new Uint8Array(47))).rejects.toThrow(RangeError);
    const one = randomBytes(LEAF_RECORD_BYTES);
    expectSameTree(await buildTreeFromRecords(one, { threshold: 0, threads: 2 }), single(one), 'one leaf');
  });
});

describe('async distributions = sync distributions', () => {
  const n = 300;
  const claimants = randomBytes(n * 32);
  const unlocked = BigUint64Array.from({ length: n }, (_, i) => BigInt(i) * 1_000_003n + 1n);
  const locked = BigUint64Array.from({ length: n }, (_, i) => BigInt(i % 3));
  const options = { threshold: 0, threads: 2, chunkBits: 5 };

  it('buildDistributionFromColumnsAsync: same records, tree and totals; records shared with the workers', async () => {
    const expected = buildDistributionFromColumns(claimants, unlocked, locked);
    const got = await buildDistributionFromColumnsAsync(claimants, unlocked, locked, options);
    expect(got.records.equals(expected.records)).toBe(true);
    expect(got.records.buffer).toBeInstanceOf(SharedArrayBuffer);
    expectSameTree(got.tree, expected.tree, 'columns');
    expect([got.totalUnlocked, got.totalLocked]).toEqual([expected.totalUnlocked, expected.totalLocked]);
  });

  it('buildDistributionFromSortedAsync: same as the sync one; below the threshold nothing is shared', async () => {
    const order = sortOrder(claimants, n);
    const sorted = Buffer.alloc(n * 32);
    const sortedUnlocked = new BigUint64Array(n);
    order.forEach((from, i) => {
      claimants.copy(sorted, i * 32, from * 32, from * 32 + 32);
      sortedUnlocked[i] = unlocked[from] as bigint;
    });
    const expected = buildDistributionFromSorted(sorted, sortedUnlocked);
    const got = await buildDistributionFromSortedAsync(sorted, sortedUnlocked, undefined, options);
    expect(got.records.equals(expected.records)).toBe(true);
    expectSameTree(got.tree, expected.tree, 'sorted');
    expect(got.totalUnlocked).toBe(expected.totalUnlocked);
    const small = await buildDistributionFromSortedAsync(sorted, sortedUnlocked);
    expect(small.records.buffer).toBeInstanceOf(ArrayBuffer);
    expect(small.tree.root.equals(expected.tree.root)).toBe(true);
  });

  it('rejects duplicate and unsorted claimants before starting any worker', async () => {
    const dup = Buffer.concat([claimants.subarray(0, 32), claimants.subarray(0, 32)]);
    await expect(
      buildDistributionFromSortedAsync(dup, new BigUint64Array(2), undefined, options),
    ).rejects.toThrow(/duplicate claimant/);
    const order = sortOrder(claimants, 2);
    const descending = Buffer.concat([
      claimants.subarray((order[1] as number) * 32, (order[1] as number) * 32 + 32),
      claimants.subarray((order[0] as number) * 32, (order[0] as number) * 32 + 32),
    ]);
    await expect(
      buildDistributionFromSortedAsync(descending, new BigUint64Array(2), undefined, options),
    ).rejects.toThrow(/not ascending/);
  });
});

describe('worker failures', () => {
  const n = 64;
  const records = randomBytes(n * LEAF_RECORD_BYTES);
  const base: ParallelOptions = { threshold: 0, threads: 2, chunkBits: 3, mainThread: false };

  it('an exception in a worker rejects the build', async () => {
    await expect(
      buildTreeFromRecords(records, { ...base, faults: [{ chunk: 5, kind: 'throw' }] }),
    ).rejects.toThrow(/merkle worker \d failed: injected fault in chunk 5/);
  });

  it('a worker exiting with a non-zero code rejects the build', async () => {
    await expect(
      buildTreeFromRecords(records, { ...base, faults: [{ chunk: 0, kind: 'exit' }] }),
    ).rejects.toThrow(/merkle worker \d exited with code 1/);
  });

  it('the other workers are stopped: a worker spinning forever is terminated when another one fails', async () => {
    const before = threadCount();
    const faults = [
      { chunk: 0, kind: 'hang' },
      { chunk: 1, kind: 'throw' },
    ] as const;
    await expect(buildTreeFromRecords(records, { ...base, faults })).rejects.toThrow(
      /injected fault in chunk 1/,
    );
    if (before !== undefined)
      expect(await eventually(() => (threadCount() ?? 0) <= before, 10_000)).toBe(true);
    // And the next build is unaffected.
    expectSameTree(await buildTreeFromRecords(records, base), single(records), 'after failures');
  });
});
