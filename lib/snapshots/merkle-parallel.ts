// Multi-threaded build of the Jito merkle tree of merkle.ts: the same levels, root and proofs, with the
// sha256 calls (2 per leaf, 1 per internal node) spread over worker threads. Design (docs/merkle.md §1
// "Parallel build"; measurements in §4):
//
//   - The n leaf records (48 bytes each, in leaf order) and all tree levels live in SharedArrayBuffers: the
//     records as encoded (encodeLeafRecords(…, shared = true), no copy), the levels in ONE buffer of
//     treeNodeCount(n) × 32 bytes (level k at levelOffsets[k]).
//   - The leaves are cut into chunks of 2^K leaves (the last chunk takes the tail, 1..2^K leaves). A chunk
//     starts at a multiple of 2^K, so its subtree up to height K is exactly a piece of levels 0..K of the
//     whole tree: a thread hashes the chunk's leaves into level 0, then reduces levels 1..K in place, with
//     Jito's duplicate-last rule inside the tail chunk (which is the whole tree's rule there: every chunk
//     before it contributes an even number of nodes to each level below K).
//   - Threads claim chunks from a shared counter (Atomics.add), so a thread slowed by a busy core takes
//     fewer chunks. The main thread hashes chunks too while the workers start (~20-40 ms each), then waits
//     for the last chunk (not for workers still starting up) and finishes levels K+1..depth with
//     reduceLevel (≤ n / 2^10 nodes).
//   - The worker is a self-contained CommonJS source string run with `new Worker(source, { eval: true })`
//     that requires only node:crypto and node:worker_threads: it works unchanged inside the single-file
//     esbuild bundle of a Lambda handler (no separate worker file to ship). It hashes with the WebAssembly
//     kernel of sha256-wasm.ts, whose compiled module it gets in workerData (null where WebAssembly SIMD is
//     unavailable or disabled: then node:crypto), and repeats the batch loops of sha256-wasm.ts and the
//     node:crypto loops of merkle.ts (hashLeafRecords, reduceLevel); tests/unit/merkle-parallel.test.ts
//     checks that the parallel build equals the single-thread one byte for byte, both ways.
//   - A worker error (exception or non-zero exit) rejects the build; every worker is terminated when the
//     build ends, whether it succeeded or not.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import {
  assertLeafOrder,
  buildTree,
  type Distribution,
  distributionWith,
  encodeLeafRecords,
  HASH_BYTES,
  hashLeafRecords,
  LEAF_RECORD_BYTES,
  loadBulkKernel,
  MAX_LEAVES,
  type MerkleTree,
  reduceLevel,
  sortOrder,
} from './merkle.js';
import { KERNEL_BATCH, sha256WasmModule } from './sha256-wasm.js';

/**
 * Leaves from which the parallel build is used by default: the break-even measured on an idle 2-vCPU VM
 * (docs/merkle.md §4). Below it a worker's start-up (~50 ms of CPU, 20-40 ms before it hashes) and the
 * slower hashing of two concurrent threads cost more than they save.
 */
export const PARALLEL_THRESHOLD = 131_072;

/** Lambda gives one vCPU's worth of CPU time per 1,769 MB of memory (AWS docs), whatever os.cpus() reports. */
export const LAMBDA_MB_PER_VCPU = 1769;

export interface WorkerFault {
  chunk: number;
  kind: 'throw' | 'exit' | 'hang';
}

export interface ParallelOptions {
  /** Fewer leaves than this: the single-thread build (default PARALLEL_THRESHOLD). */
  threshold?: number;
  /**
   * Threads that hash, the main thread included (default defaultThreads()). 1 = single thread. Capped at the
   * number of chunks.
   */
  threads?: number;
  /** log2 of the leaves per chunk (default from n and threads; capped so that there are ≥ 2 chunks). */
  chunkBits?: number;
  /**
   * Whether the main thread hashes chunks too (default true). With false, `threads` workers do all the
   * chunks and the main thread only the top levels (tests use it to exercise the worker source).
   */
  mainThread?: boolean;
  /**
   * For tests only: the worker that claims chunk `chunk` throws, exits with code 1, or spins forever
   * ('hang': only terminate() stops it). The main thread ignores them.
   */
  faults?: readonly WorkerFault[];
}

/**
 * Hashing threads by default: os.availableParallelism(), and on Lambda (AWS_LAMBDA_FUNCTION_MEMORY_SIZE set)
 * at most the vCPUs its memory pays for, rounded (memory / 1,769 MB; at least 1): a 2,048 MB function gets
 * ~1.16 vCPU of CPU time whatever the cores it sees, so it builds on one thread; 3,538 MB → 2 threads,
 * 10,240 MB → 6.
 */
export function defaultThreads(env: NodeJS.ProcessEnv = process.env, cores = availableParallelism()): number {
  const memory = Number(env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE);
  if (!Number.isFinite(memory) || memory <= 0) return cores;
  return Math.max(1, Math.min(cores, Math.round(memory / LAMBDA_MB_PER_VCPU)));
}

/** The plan of a parallel build, or undefined for the single-thread build. */
export interface ParallelPlan {
  leafCount: number;
  /** Threads that hash (main thread included when mainThread). */
  threads: number;
  workers: number;
  chunkBits: number;
  chunkCount: number;
}

/** Whether and how a tree of `leafCount` leaves is built in parallel with `options`. */
export function parallelPlan(leafCount: number, options: ParallelOptions = {}): ParallelPlan | undefined {
  const threshold = options.threshold ?? PARALLEL_THRESHOLD;
  const requested = Math.floor(options.threads ?? defaultThreads());
  const mainThread = options.mainThread ?? true;
  if (leafCount < 2 || leafCount < threshold || requested < (mainThread ? 2 : 1)) return undefined;
  // Aim at ~8 chunks per thread (load balance on busy cores) of 2^10..2^15 leaves (a chunk is ≥ ~1 ms of
  // hashing, the top levels left to the main thread are ≤ n / 2^10 nodes).
  const aimed = Math.floor(Math.log2(leafCount / (requested * 8)));
  let chunkBits = options.chunkBits ?? Math.min(15, Math.max(10, aimed));
  // At least 2 chunks: the chunks' level-K nodes are then a proper level below the root.
  chunkBits = Math.max(0, Math.min(chunkBits, Math.ceil(Math.log2(leafCount)) - 1));
  const chunkCount = Math.ceil(leafCount / 2 ** chunkBits);
  const threads = Math.min(requested, chunkCount);
  const workers = mainThread ? threads - 1 : threads;
  if (workers < 1) return undefined;
  return { leafCount, threads, workers, chunkBits, chunkCount };
}

// ---------------------------------------------------------------------------------------------------------
// The worker: plain JavaScript, node built-ins only (see the header). Keep its loops identical in effect to
// Sha256Kernel (sha256-wasm.ts) and to hashLeafRecordsCrypto / reduceLevelCrypto (merkle.ts).

const WORKER_SOURCE = `'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const crypto = require('node:crypto');
const H = 32;
const leafCount = workerData.leafCount;
const chunkBits = workerData.chunkBits;
const chunkCount = workerData.chunkCount;
const levelOffsets = Int32Array.from(workerData.levelOffsets);
const faults = workerData.faults;
const words = new Uint32Array(workerData.records, workerData.recordsOffset, leafCount * 12);
const nodes = Buffer.from(workerData.nodes);
const counters = new Int32Array(workerData.counters);
const sha = typeof crypto.hash === 'function'
  ? (x) => crypto.hash('sha256', x, 'binary')
  : (x) => crypto.createHash('sha256').update(x).digest('binary');
const write = typeof nodes.latin1Write === 'function'
  ? (target, s, o) => { target.latin1Write(s, o, H); }
  : (target, s, o) => { target.write(s, o, H, 'latin1'); };

// The WebAssembly kernel of sha256-wasm.ts (its compiled module comes in workerData; null: node:crypto), with
// the batch loops of Sha256Kernel.hashLeafRecords and Sha256Kernel.reduceLevel.
const kernel = workerData.wasm ? wasmKernel(workerData.wasm, ${KERNEL_BATCH}) : null;

function wasmKernel(module, batch) {
  const wasm = new WebAssembly.Instance(module, {}).exports;
  const input = wasm.heap();
  const output = input + batch * 2 * H;
  // Never grown (see Sha256Kernel): the module's initial memory holds the batches.
  if (wasm.memory.buffer.byteLength < output + batch * H) throw new Error('sha256 kernel: memory too small');
  const memory = new Uint8Array(wasm.memory.buffer);
  const bytes = new Uint8Array(workerData.records, workerData.recordsOffset, leafCount * 48);
  return {
    // Leaves first..end-1 into level 0.
    leaves(first, last) {
      const out = levelOffsets[0];
      for (let i = first; i < last; i += batch) {
        const n = Math.min(batch, last - i);
        memory.set(bytes.subarray(i * 48, (i + n) * 48), input);
        wasm.leaves(input, output, n);
        nodes.set(memory.subarray(output, output + n * H), out + i * H);
      }
    },
    // count nodes at byte offset src of the levels into ceil(count / 2) parents at dst, the last node of an
    // odd count paired with itself.
    reduce(src, dst, count) {
      const next = (count + 1) >>> 1;
      for (let i = 0; i < next; i += batch) {
        const n = Math.min(batch, next - i);
        const children = Math.min(count - 2 * i, 2 * n);
        memory.set(nodes.subarray(src + 2 * i * H, src + (2 * i + children) * H), input);
        if (children < 2 * n) {
          const last = input + (children - 1) * H;
          memory.copyWithin(last + H, last, last + H);
        }
        wasm.nodes(input, output, n);
        nodes.set(memory.subarray(output, output + n * H), dst + i * H);
      }
    },
  };
}

// Leaves first..end-1: sha256(0x00 ‖ sha256(record)) into level 0 (hashLeafRecords).
function hashLeaves(first, end) {
  if (kernel) return kernel.leaves(first, end);
  const record = new Uint8Array(48);
  const record32 = new Uint32Array(record.buffer);
  const prefixed = Buffer.alloc(1 + H);
  prefixed[0] = 0x00;
  const out = levelOffsets[0];
  for (let i = first; i < end; i++) {
    const o = i * 12;
    for (let k = 0; k < 12; k++) record32[k] = words[o + k];
    write(prefixed, sha(record), 1);
    write(nodes, sha(prefixed), out + i * H);
  }
}

// Level k-1 nodes first..first+count-1 (first even) into level k nodes first/2.., the last node of an odd
// count paired with itself (reduceLevel).
function reduce(k, first, count) {
  const src = levelOffsets[k - 1] + first * H;
  const dst = levelOffsets[k] + (first / 2) * H;
  if (kernel) return kernel.reduce(src, dst, count);
  const pair = Buffer.alloc(1 + 2 * H);
  pair[0] = 0x01;
  const next = (count + 1) >>> 1;
  for (let i = 0; i < next; i++) {
    const a = src + 2 * i * H;
    const b = 2 * i + 1 < count ? a + H : a;
    let lo = a;
    let hi = b;
    for (let j = 0; j < H; j++) {
      const x = nodes[a + j];
      const y = nodes[b + j];
      if (x !== y) {
        if (x > y) {
          lo = b;
          hi = a;
        }
        break;
      }
    }
    for (let j = 0; j < H; j++) {
      pair[1 + j] = nodes[lo + j];
      pair[1 + H + j] = nodes[hi + j];
    }
    write(nodes, sha(pair), dst + i * H);
  }
}

// Chunk c: its leaves, then its subtree up to level chunkBits.
function chunk(c) {
  let first = c * 2 ** chunkBits;
  let count = Math.min(leafCount, first + 2 ** chunkBits) - first;
  hashLeaves(first, first + count);
  for (let k = 1; k <= chunkBits; k++) {
    reduce(k, first, count);
    first /= 2;
    count = (count + 1) >>> 1;
  }
}

for (let c = Atomics.add(counters, 0, 1); c < chunkCount; c = Atomics.add(counters, 0, 1)) {
  const fault = faults.find((f) => f.chunk === c);
  if (fault) {
    if (fault.kind === 'exit') process.exit(1);
    if (fault.kind === 'hang') for (;;);
    throw new Error('injected fault in chunk ' + c);
  }
  chunk(c);
  Atomics.add(counters, 1, 1);
  parentPort.postMessage(c);
}
`;

// ---------------------------------------------------------------------------------------------------------

function levelLayout(leafCount: number): { counts: number[]; offsets: number[]; totalBytes: number } {
  const counts = [leafCount];
  const offsets = [0];
  let bytes = leafCount * HASH_BYTES;
  for (let count = leafCount; count > 1; ) {
    count = (count + 1) >>> 1;
    counts.push(count);
    offsets.push(bytes);
    bytes += count * HASH_BYTES;
  }
  return { counts, offsets, totalBytes: bytes };
}

/** Records in a SharedArrayBuffer at a 4-aligned offset: as given when they are, else copied into one. */
function sharedRecords(records: Uint8Array): Uint8Array {
  if (records.buffer instanceof SharedArrayBuffer && records.byteOffset % 4 === 0) return records;
  const copy = new Uint8Array(new SharedArrayBuffer(records.length));
  copy.set(records);
  return copy;
}

/**
 * Resolves once every chunk is hashed (the completed counter reaches chunkCount: workers post a message
 * after each chunk), without waiting for workers still starting up that found nothing left to do. Rejects
 * on a worker's error or non-zero exit, or when all workers have stopped with chunks left undone.
 */
function chunksDone(workers: readonly Worker[], counters: Int32Array, chunkCount: number): Promise<void> {
  return new Promise((resolve, reject) => {
    let running = workers.length;
    const check = () => {
      const completed = Atomics.load(counters, 1);
      if (completed === chunkCount) resolve();
      else if (running === 0)
        reject(new Error(`merkle workers stopped after ${completed} of ${chunkCount} chunks`));
    };
    workers.forEach((worker, i) => {
      worker.on('message', check);
      worker.once('error', (error) => reject(new Error(`merkle worker ${i} failed: ${error.message}`)));
      worker.once('exit', (code) => {
        running--;
        if (code !== 0) reject(new Error(`merkle worker ${i} exited with code ${code}`));
        else check();
      });
    });
    check();
  });
}

/** The parallel build with a plan (see parallelPlan); `records` are n × 48-byte leaf records in leaf order. */
async function buildParallel(
  records: Uint8Array,
  plan: ParallelPlan,
  options: ParallelOptions,
): Promise<MerkleTree> {
  const { leafCount, chunkBits, chunkCount } = plan;
  const shared = sharedRecords(records);
  const layout = levelLayout(leafCount);
  const nodesBuffer = new SharedArrayBuffer(layout.totalBytes);
  const nodes = Buffer.from(nodesBuffer);
  const levels = layout.counts.map((count, k) =>
    nodes.subarray(layout.offsets[k] as number, (layout.offsets[k] as number) + count * HASH_BYTES),
  );
  const counters = new Int32Array(new SharedArrayBuffer(8)); // [next chunk to claim, chunks completed]
  // The WebAssembly kernel for this thread's chunks and its compiled module for the workers (structured-cloned
  // into workerData: the compiled code is shared, each worker instantiates it).
  loadBulkKernel(3 * leafCount);
  const wasm = sha256WasmModule();
  const workerData = {
    wasm: wasm ?? null,
    records: shared.buffer,
    recordsOffset: shared.byteOffset,
    nodes: nodesBuffer,
    levelOffsets: layout.offsets.slice(0, chunkBits + 1),
    leafCount,
    chunkBits,
    chunkCount,
    counters: counters.buffer,
    faults: options.faults ?? [],
  };
  const workers: Worker[] = [];
  try {
    for (let w = 0; w < plan.workers; w++) {
      // execArgv: [] so that a parent's loaders (tsx, vitest) are not started again in every worker.
      workers.push(new Worker(WORKER_SOURCE, { eval: true, workerData, execArgv: [] }));
    }
    // Listening from here on: a failure is never an unhandled rejection, even while this thread hashes.
    const done = chunksDone(workers, counters, chunkCount);
    done.catch(() => undefined);
    if (options.mainThread ?? true) {
      for (let c = Atomics.add(counters, 0, 1); c < chunkCount; c = Atomics.add(counters, 0, 1)) {
        hashChunk(shared, levels, c, chunkBits, leafCount);
        Atomics.add(counters, 1, 1);
      }
    }
    // All done by now (e.g. this thread hashed every chunk while the workers were starting up): nothing to
    // wait for, and a worker failing later, if any, has no work of this build left.
    if (Atomics.load(counters, 1) !== chunkCount) await done;
  } finally {
    // Success or failure, every worker is stopped. Not awaited: stopping a worker that is still starting up
    // (nothing left for it to claim) can take ~0.1 s on a busy machine, and no worker writes any more (all
    // chunks are done, or the build has failed and its buffers are dropped).
    for (const worker of workers) {
      worker.unref();
      worker.terminate().catch(() => undefined);
    }
  }
  for (let k = chunkBits + 1; k < levels.length; k++) {
    reduceLevel(levels[k - 1] as Buffer, layout.counts[k - 1] as number, levels[k]);
  }
  const depth = levels.length - 1;
  return { root: (levels[depth] as Buffer).subarray(0, HASH_BYTES), levels, leafCount, depth };
}

/** The main thread's share: chunk c's leaves into level 0, then its subtree up to level chunkBits. */
function hashChunk(
  records: Uint8Array,
  levels: Buffer[],
  c: number,
  chunkBits: number,
  leafCount: number,
): void {
  let first = c * 2 ** chunkBits;
  let count = Math.min(leafCount, first + 2 ** chunkBits) - first;
  const leaves = levels[0] as Buffer;
  hashLeafRecords(
    records.subarray(first * LEAF_RECORD_BYTES, (first + count) * LEAF_RECORD_BYTES),
    leaves.subarray(first * HASH_BYTES, (first + count) * HASH_BYTES),
  );
  for (let k = 1; k <= chunkBits; k++) {
    const next = (count + 1) >>> 1;
    const from = levels[k - 1] as Buffer;
    const to = levels[k] as Buffer;
    reduceLevel(
      from.subarray(first * HASH_BYTES, (first + count) * HASH_BYTES),
      count,
      to.subarray((first / 2) * HASH_BYTES, (first / 2 + next) * HASH_BYTES),
    );
    first /= 2;
    count = next;
  }
}

/**
 * The tree of `records` (n × 48-byte leaf records in leaf order): leaf hashes and all levels, on several
 * threads when parallelPlan says so (records backed by a SharedArrayBuffer are used in place, others are
 * copied once), else on this thread (= buildTree(hashLeafRecords(records))). Same result either way.
 */
export async function buildTreeFromRecords(
  records: Uint8Array,
  options: ParallelOptions = {},
): Promise<MerkleTree> {
  if (records.length % LEAF_RECORD_BYTES !== 0) {
    throw new RangeError(`records length ${records.length} is not a multiple of ${LEAF_RECORD_BYTES}`);
  }
  const leafCount = records.length / LEAF_RECORD_BYTES;
  if (leafCount === 0) throw new RangeError('a merkle tree needs at least one leaf');
  if (leafCount > MAX_LEAVES) throw new RangeError(`at most ${MAX_LEAVES} leaves, got ${leafCount}`);
  const plan = parallelPlan(leafCount, options);
  if (plan) return buildParallel(records, plan, options);
  loadBulkKernel(3 * leafCount);
  return buildTree(hashLeafRecords(records));
}

/** The leaf records of the columns (in `order` when given) in memory the workers can share, then the tree. */
function distributionOfColumns(
  claimants: Uint8Array,
  amountsUnlocked: BigUint64Array,
  amountsLocked: BigUint64Array | undefined,
  order: Uint32Array | undefined,
  options: ParallelOptions,
): Promise<Distribution> {
  const shared = parallelPlan(amountsUnlocked.length, options) !== undefined;
  const records = encodeLeafRecords(claimants, amountsUnlocked, amountsLocked, order, shared);
  return distributionAsync(records, amountsUnlocked, amountsLocked, options);
}

/** buildDistributionFromSorted (columns ascending by claimant) with the tree built by buildTreeFromRecords. */
export async function buildDistributionFromSortedAsync(
  claimants: Uint8Array,
  amountsUnlocked: BigUint64Array,
  amountsLocked?: BigUint64Array,
  options: ParallelOptions = {},
): Promise<Distribution> {
  return distributionOfColumns(claimants, amountsUnlocked, amountsLocked, undefined, options);
}

/** buildDistributionFromColumns (columns in any order, sorted here) with buildTreeFromRecords. */
export async function buildDistributionFromColumnsAsync(
  claimants: Uint8Array,
  amountsUnlocked: BigUint64Array,
  amountsLocked?: BigUint64Array,
  options: ParallelOptions = {},
): Promise<Distribution> {
  const order = sortOrder(claimants, amountsUnlocked.length);
  return distributionOfColumns(claimants, amountsUnlocked, amountsLocked, order, options);
}

async function distributionAsync(
  records: Buffer,
  amountsUnlocked: BigUint64Array,
  amountsLocked: BigUint64Array | undefined,
  options: ParallelOptions,
): Promise<Distribution> {
  assertLeafOrder(records);
  const tree = await buildTreeFromRecords(records, options);
  return distributionWith(records, tree, amountsUnlocked, amountsLocked);
}
