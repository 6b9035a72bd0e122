// The batched SHA-256 kernel of the merkle tree: WebAssembly compiled from AssemblyScript
// (sha256-simd/sha256.ts, by scripts/wasm.ts into sha256-wasm.generated.ts) that hashes four messages per
// SIMD compression, a whole batch of leaves or nodes per call, with no JS ↔ native crossing per hash.
// merkle.ts hashes its bulk levels with it; the worker threads of merkle-parallel.ts instantiate the same
// compiled module. Design and measurements: docs/merkle.md §4.
//
// Nothing is compiled or instantiated at import (Lambda cold starts): the module is compiled on the first
// call of sha256WasmModule() / sha256Kernel(), which the tree builders make (merkle.ts loadBulkKernel).
// hashLeafRecords and reduceLevel only ask loadedSha256Kernel(), which does not reference the embedded bytes:
// a bundle that only verifies proofs (layout.ts readProof re-hashes a bucket with them) leaves the ~9 KB of
// base64 out. Where WebAssembly SIMD is unavailable (WebAssembly.validate rejects the module) both return
// undefined and merkle.ts keeps hashing with node:crypto.
import { SHA256_WASM_BASE64 } from './sha256-wasm.generated.js';

const LEAF_RECORD_BYTES = 48;
const HASH_BYTES = 32;

/** Leaves or nodes per kernel call: inputs are copied into linear memory in batches of this many (~64 KB). */
export const KERNEL_BATCH = 1024;

/** A compiled WebAssembly.Module (opaque: the project's TypeScript libs do not declare the WebAssembly API). */
export type WasmModule = object;

/** The part of the WebAssembly JavaScript API used here. */
interface WebAssemblyApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: object) => { readonly exports: object };
}

/** Read when needed, not at import (a top-level read would survive tree-shaking in every bundle). */
const webAssemblyApi = (): WebAssemblyApi | undefined =>
  (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;

/** The kernel's exports (sha256-simd/sha256.ts). */
interface KernelExports {
  readonly memory: { readonly buffer: ArrayBuffer };
  /** n 48-byte records at src → n leaf hashes at dst (groups of 4: reads and writes ceil(n/4)·4). */
  leaves(src: number, dst: number, n: number): void;
  /** n pairs of 32-byte children at src → n node hashes at dst (groups of 4, likewise). */
  nodes(src: number, dst: number, n: number): void;
  /** First free byte after the static data. */
  heap(): number;
}

/** One instance of the kernel with its batch areas in linear memory. */
export class Sha256Kernel {
  private readonly kernel: KernelExports;
  private readonly memory: Uint8Array;
  /** Batch input (KERNEL_BATCH × 64 bytes) and output (KERNEL_BATCH × 32 bytes) offsets in linear memory. */
  private readonly input: number;
  private readonly output: number;

  constructor(api: WebAssemblyApi, module: WasmModule) {
    this.kernel = new api.Instance(module, {}).exports as KernelExports;
    this.input = this.kernel.heap();
    this.output = this.input + KERNEL_BATCH * 2 * HASH_BYTES;
    // The module's initial memory holds the batches (scripts/wasm.ts): never grow it. Growing detaches the
    // old ArrayBuffer, and the first detach anywhere in a process makes V8 check for detached buffers in all
    // optimised typed-array code from then on (record encoding measured ~1.5× slower).
    const { buffer } = this.kernel.memory;
    if (buffer.byteLength < this.output + KERNEL_BATCH * HASH_BYTES) {
      throw new Error('sha256 kernel: linear memory too small for the batches (see scripts/wasm.ts)');
    }
    this.memory = new Uint8Array(buffer);
  }

  /** Leaf hashes sha256(0x00 ‖ sha256(record)) of `records` (n × 48 bytes) into `out` (n × 32 bytes). */
  hashLeafRecords(records: Uint8Array, out: Uint8Array): void {
    const count = records.length / LEAF_RECORD_BYTES;
    const { memory, input, output } = this;
    for (let i = 0; i < count; i += KERNEL_BATCH) {
      const n = Math.min(KERNEL_BATCH, count - i);
      memory.set(records.subarray(i * LEAF_RECORD_BYTES, (i + n) * LEAF_RECORD_BYTES), input);
      this.kernel.leaves(input, output, n);
      out.set(memory.subarray(output, output + n * HASH_BYTES), i * HASH_BYTES);
    }
  }

  /**
   * One level up (merkle.ts reduceLevel): `count` nodes of `prev` → ceil(count / 2) parents in `out`, node
   * i = sha256(0x01 ‖ min ‖ max) of children 2i and 2i + 1, the last node of an odd level paired with itself.
   */
  reduceLevel(prev: Uint8Array, count: number, out: Uint8Array): void {
    const nextCount = (count + 1) >>> 1;
    const { memory, input, output } = this;
    for (let i = 0; i < nextCount; i += KERNEL_BATCH) {
      const n = Math.min(KERNEL_BATCH, nextCount - i);
      const children = Math.min(count - 2 * i, 2 * n);
      memory.set(prev.subarray(2 * i * HASH_BYTES, (2 * i + children) * HASH_BYTES), input);
      if (children < 2 * n) {
        // Odd level: the last child once more, as its own sibling (Jito duplicates, never promotes).
        const last = input + (children - 1) * HASH_BYTES;
        memory.copyWithin(last + HASH_BYTES, last, last + HASH_BYTES);
      }
      this.kernel.nodes(input, output, n);
      out.set(memory.subarray(output, output + n * HASH_BYTES), i * HASH_BYTES);
    }
  }
}

/** undefined: not tried yet; null: WebAssembly SIMD unavailable. */
let compiled: WasmModule | null | undefined;
let instance: Sha256Kernel | undefined;
let enabled = true;

/**
 * The compiled kernel (compiled on the first call, ~1-5 ms), e.g. to pass to worker threads; undefined when
 * this runtime has no WebAssembly SIMD or the kernel is disabled (setSha256WasmEnabled).
 */
export function sha256WasmModule(): WasmModule | undefined {
  const api = webAssemblyApi();
  if (!enabled || !api) return undefined;
  if (compiled === undefined) {
    const bytes = Buffer.from(SHA256_WASM_BASE64, 'base64');
    compiled = api.validate(bytes) ? new api.Module(bytes) : null;
  }
  return compiled ?? undefined;
}

/** This thread's kernel, instantiated on the first call, or undefined as for sha256WasmModule. */
export function sha256Kernel(): Sha256Kernel | undefined {
  if (!instance) {
    const module = sha256WasmModule();
    const api = webAssemblyApi();
    if (module && api) instance = new Sha256Kernel(api, module);
  }
  return loadedSha256Kernel();
}

/** This thread's kernel if sha256Kernel() has instantiated it (and it is enabled); never loads it. */
export function loadedSha256Kernel(): Sha256Kernel | undefined {
  return enabled ? instance : undefined;
}

/**
 * Benchmarks and tests: false makes the merkle builders hash with node:crypto only (the fallback taken
 * where WebAssembly SIMD is unavailable), true (the default) lets them use the kernel again.
 */
export function setSha256WasmEnabled(value: boolean): void {
  enabled = value;
}
