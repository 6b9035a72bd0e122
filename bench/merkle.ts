// Merkle snapshot benchmark: Arcadia's builder vs merkletreejs and @openzeppelin/merkle-tree, plus the
// native sha256 floor. Not a test. Each (implementation, size) runs in its own child process so its peak RSS
// is its own.
//
//   npx tsx bench/merkle.ts [--sizes 10000,100000,1000000]
//                           [--impls ours,pipeline,merkletreejs,merkletreejs-jito,openzeppelin]
//                           [--runs 3] [--timeout-min 5] [--rope-keys]
//
// Input: n distinct pseudo-random claimants (32 bytes) with u64 amounts, identical for every implementation.
//   ours              sort by claimant + Jito leaves + tree on one thread (buildDistributionFromColumns,
//                     lib/snapshots/merkle.ts)
//   pipeline          ours end to end as the snapshot builder runs it: allocation from a Map<base58, balance>,
//                     tree (buildDistributionFromSorted), S3 objects (lib/snapshots/{allocation,merkle,
//                     layout}.ts); proofs served through readProof from in-memory objects with the index cached
//   merkletreejs      new MerkleTree(leaves, sha256, { sortPairs: true }) over the same Jito leaves
//   merkletreejs-jito the same plus duplicateOdd and a 0x01-prefixing concatenator: Jito's exact tree, so
//                     its root must equal ours (checked)
//   openzeppelin      StandardMerkleTree.of([[bytes32, uint256]]) (keccak256, its own leaf format)
import { createHash } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { StandardMerkleTree } from '@openzeppelin/merkle-tree';
import { MerkleTree as MerkleTreeJs } from 'merkletreejs';
import {
  type ByteRange,
  buildDistributionFromColumns,
  buildDistributionFromSorted,
  buildTree,
  computeAllocations,
  encodeAddress,
  encodeLeafRecords,
  HASH_BYTES,
  hashLeafRecords,
  loadSnapshotIndex,
  type MerkleTree,
  proofFor,
  readProof,
  type SnapshotIndex,
  serializeSnapshot,
  sortOrder,
  treeDepth,
  verifyProof,
} from '../lib/snapshots/index.js';
import { reportToParent, runChild } from './lib/child.js';
import { peakRssBytes, resetPeakRss, rssBytes } from './lib/memory.js';
import { type OpensslRate, opensslSha256Rate } from './lib/openssl.js';
import { type Cell, formatBytes, formatMs, formatNumber, formatRatio, printTable } from './lib/table.js';

const IMPLS = ['ours', 'pipeline', 'merkletreejs', 'merkletreejs-jito', 'openzeppelin'] as const;
type Impl = (typeof IMPLS)[number];

interface ChildResult {
  impl: Impl;
  n: number;
  runsMs: number[];
  /** Process CPU time (user + system) of each run: what other load on a shared machine disturbs least. */
  cpuMs: number[];
  phasesMs: Record<string, number>;
  baseRss: number;
  peakRss: number;
  root: string;
  proofsPerSecond: number;
  verifiesPerSecond: number;
  servedPerSecond?: number;
  /** Own proofs (of ≤ 1000 sampled leaves) that the implementation's own verify rejects. */
  proofFailures: number;
}

// ---------------------------------------------------------------------------------------------------------
// Input

function makeInput(n: number): { claimants: Buffer; amounts: BigUint64Array } {
  // xorshift32: deterministic, fast; claimants distinct with overwhelming probability (checked by the builder).
  let x = 0x9e3779b9;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
  const claimants = Buffer.allocUnsafe(n * 32);
  for (let i = 0; i < n * 8; i++) claimants.writeUInt32LE(next(), i * 4);
  const amounts = new BigUint64Array(n);
  for (let i = 0; i < n; i++) amounts[i] = BigInt(1 + (next() % 1_000_000)) * 1_000_000n;
  return { claimants, amounts };
}

const sha256 = (data: Uint8Array): Buffer => createHash('sha256').update(data).digest();
/** Jito leaf, written the obvious way (the peers' leaf hashing). */
function naiveLeaf(claimant: Uint8Array, amount: bigint): Buffer {
  const record = Buffer.alloc(48);
  record.set(claimant, 0);
  record.writeBigUInt64LE(amount, 32);
  return sha256(Buffer.concat([Buffer.from([0]), sha256(record)]));
}

// ---------------------------------------------------------------------------------------------------------
// Implementations: build() is timed; prove/verify are rated afterwards on the last build.

interface Built {
  root: string;
  phasesMs: Record<string, number>;
  prove(i: number): unknown;
  verify(i: number, proof: unknown): boolean;
  /** Re-runs the build step by step to fill phasesMs (untimed). */
  breakdown?: () => void | Promise<void>;
  /** Proofs served from the stored objects (pipeline only). */
  serve?: { load(): Promise<void>; proof(i: number): Promise<void> };
}

type Setup = (
  input: { claimants: Buffer; amounts: BigUint64Array },
  n: number,
) => () => Built | Promise<Built>;

const timed = <T>(phases: Record<string, number>, name: string, f: () => T): T => {
  const t = performance.now();
  const value = f();
  phases[name] = performance.now() - t;
  return value;
};

/** Root, proof and verification of one of Arcadia's trees. */
const ourProofs = (tree: MerkleTree): Pick<Built, 'root' | 'prove' | 'verify'> => {
  const leaves = tree.levels[0] as Buffer;
  return {
    root: tree.root.toString('hex'),
    prove: (i) => proofFor(tree.levels, i),
    verify: (i, proof) =>
      verifyProof(leaves.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES), proof as Buffer[], tree.root),
  };
};

const setups: Record<Impl, Setup> = {
  ours:
    ({ claimants, amounts }, n) =>
    () => {
      const phases: Record<string, number> = {};
      const { tree } = buildDistributionFromColumns(claimants, amounts);
      // The same steps once more, one at a time, for the breakdown; run after the timed build.
      const breakdown = () => {
        const order = timed(phases, 'sort', () => sortOrder(claimants, n));
        const records = timed(phases, 'encode', () =>
          encodeLeafRecords(claimants, amounts, undefined, order),
        );
        const leafHashes = timed(phases, 'leaves', () => hashLeafRecords(records));
        timed(phases, 'tree', () => buildTree(leafHashes));
      };
      return { ...ourProofs(tree), phasesMs: phases, breakdown };
    },

  pipeline: ({ claimants, amounts }, n) => {
    // Input as the snapshot builder has it: aggregated balances per base58 owner. bs58 builds each address
    // with += (a rope of 44 pieces); flattened at once so that the map holds flat strings and the pieces die
    // young, as with the previous 32-byte codec (--rope-keys keeps the ropes, as the chain reader's map does).
    const ropeKeys = process.argv.includes('--rope-keys');
    const balances = new Map<string, bigint>();
    for (let i = 0; i < n; i++) {
      const owner = encodeAddress(claimants, i * 32);
      balances.set(ropeKeys ? owner : Buffer.from(owner, 'latin1').toString('latin1'), amounts[i] as bigint);
    }
    const pool = 100_000_000_000_000_000n; // 10 % of 1e9 tokens with 9 decimals
    return async () => {
      const phases: Record<string, number> = {};
      const allocation = timed(phases, 'allocation', () => computeAllocations(balances, pool));
      const distribution = timed(phases, 'leaves+tree', () =>
        buildDistributionFromSorted(allocation.claimants, allocation.amounts),
      );
      const objects = timed(phases, 'serialize', () =>
        serializeSnapshot(distribution, { prefix: 'bench/', version: 1 }),
      );
      const store = new Map(objects.map((o) => [o.key, o.body]));
      const getObject = async (key: string, range?: ByteRange) => {
        const body = store.get(key);
        return body && range ? body.subarray(range.start, range.end + 1) : body;
      };
      const { tree } = distribution;
      let index: SnapshotIndex | undefined;
      return {
        ...ourProofs(tree),
        phasesMs: phases,
        serve: {
          load: async () => {
            index = await loadSnapshotIndex('bench/', getObject);
          },
          proof: async (i) => {
            const record = await readProof('bench/', allocation.owners[i] as string, getObject, index);
            if (record?.index !== i) throw new Error('served proof not found');
          },
        },
      };
    };
  },

  merkletreejs:
    ({ claimants, amounts }, n) =>
    () => {
      const phases: Record<string, number> = {};
      const leaves = timed(phases, 'leaves', () =>
        Array.from({ length: n }, (_, i) =>
          naiveLeaf(claimants.subarray(i * 32, i * 32 + 32), amounts[i] as bigint),
        ),
      );
      const tree = timed(phases, 'tree', () => new MerkleTreeJs(leaves, sha256, { sortPairs: true }));
      const root = tree.getRoot();
      return {
        root: root.toString('hex'),
        phasesMs: phases,
        prove: (i) => tree.getProof(leaves[i] as Buffer, i),
        verify: (i, proof) => tree.verify(proof as unknown[], leaves[i] as Buffer, root),
      };
    },

  'merkletreejs-jito':
    ({ claimants, amounts }, n) =>
    () => {
      const phases: Record<string, number> = {};
      const order = sortOrder(claimants, n);
      const leaves = timed(phases, 'leaves', () =>
        Array.from({ length: n }, (_, k) => {
          const i = order[k] as number;
          return naiveLeaf(claimants.subarray(i * 32, i * 32 + 32), amounts[i] as bigint);
        }),
      );
      const prefix = Buffer.from([1]);
      const tree = timed(
        phases,
        'tree',
        () =>
          new MerkleTreeJs(leaves, sha256, {
            sortPairs: true,
            duplicateOdd: true,
            concatenator: (parts: Buffer[]) => Buffer.concat([prefix, ...parts]),
          }),
      );
      const root = tree.getRoot();
      return {
        root: root.toString('hex'),
        phasesMs: phases,
        prove: (i) => tree.getProof(leaves[i] as Buffer, i),
        verify: (i, proof) => tree.verify(proof as unknown[], leaves[i] as Buffer, root),
      };
    },

  openzeppelin: ({ claimants, amounts }, n) => {
    const values = Array.from({ length: n }, (_, i): [string, string] => [
      `0x${claimants.toString('hex', i * 32, i * 32 + 32)}`,
      (amounts[i] as bigint).toString(),
    ]);
    const types = ['bytes32', 'uint256'];
    return () => {
      const phases: Record<string, number> = {};
      const tree = timed(phases, 'of', () => StandardMerkleTree.of(values, types));
      return {
        root: tree.root,
        phasesMs: phases,
        prove: (i) => tree.getProof(i),
        verify: (i, proof) =>
          StandardMerkleTree.verify(tree.root, types, values[i] as [string, string], proof as string[]),
      };
    };
  },
};

// ---------------------------------------------------------------------------------------------------------
// Child

async function rate(
  n: number,
  budgetMs: number,
  op: (i: number) => unknown | Promise<unknown>,
): Promise<number> {
  let x = 12345;
  let ops = 0;
  const start = performance.now();
  let now = start;
  while (now - start < budgetMs && ops < 200_000) {
    for (let k = 0; k < 100; k++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      await op(x % n);
      ops++;
    }
    now = performance.now();
  }
  return (ops * 1000) / (now - start);
}

async function childMain(impl: Impl, n: number, runs: number): Promise<void> {
  const input = makeInput(n);
  const build = setups[impl](input, n);
  (globalThis as { gc?: () => void }).gc?.(); // drop input-generation garbage so the peak is the build's
  const baseRss = rssBytes();
  resetPeakRss();
  const runsMs: number[] = [];
  const cpuMs: number[] = [];
  let built: Built | undefined;
  let peakRss = 0;
  for (let r = 0; r < runs; r++) {
    built = undefined;
    const t = performance.now();
    const cpu = process.cpuUsage();
    built = await build();
    runsMs.push(performance.now() - t);
    const { user, system } = process.cpuUsage(cpu);
    cpuMs.push((user + system) / 1000);
    if (r === 0) peakRss = peakRssBytes();
    if (runsMs[0] !== undefined && runsMs[0] > 20_000) break; // slow peers: one run is enough
  }
  if (!built) throw new Error('no run');
  const b = built;
  await b.breakdown?.();
  // Every proof of a sample must verify with the implementation's own verifier. merkletreejs with duplicateOdd
  // omits the self-sibling of a duplicated node from getProof, so its proofs of the leaves on the duplicated
  // edge fail (in merkletreejs too): they are counted, not fatal, for that variant only.
  const sample: number[] = [];
  const proofs: unknown[] = [];
  let proofFailures = 0;
  for (let k = 0; k < Math.min(n, 1000); k++) {
    const i = (k * 7919) % n;
    const proof = b.prove(i);
    if (b.verify(i, proof)) {
      sample.push(i);
      proofs.push(proof);
    } else if (impl === 'merkletreejs-jito') proofFailures++;
    else throw new Error(`${impl}: proof of leaf ${i} does not verify`);
  }
  const proofsPerSecond = await rate(n, 1000, (i) => b.prove(i));
  const verifiesPerSecond = await rate(sample.length, 1000, (k) => b.verify(sample[k] as number, proofs[k]));
  let servedPerSecond: number | undefined;
  if (b.serve) {
    await b.serve.load();
    servedPerSecond = await rate(n, 1000, (i) => b.serve?.proof(i));
  }
  const result: ChildResult = {
    impl,
    n,
    runsMs,
    cpuMs,
    phasesMs: b.phasesMs,
    baseRss,
    peakRss,
    root: b.root,
    proofsPerSecond,
    verifiesPerSecond,
    proofFailures,
    ...(servedPerSecond === undefined ? {} : { servedPerSecond }),
  };
  reportToParent(result);
}

// ---------------------------------------------------------------------------------------------------------
// Parent

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] as number;
};

/** sha256 compressions of a Jito tree: 1 + 1 per leaf (48-byte and 33-byte messages), 2 per node (65 bytes). */
function compressions(n: number): number {
  let nodes = 0;
  for (let count = n; count > 1; count = (count + 1) >>> 1) nodes += (count + 1) >>> 1;
  return 2 * n + 2 * nodes;
}

type Outcome = ChildResult | string;
type Results = Map<string, Outcome>;
const key = (impl: Impl, n: number) => `${impl}:${n}`;

/** Whether the previous size failed or extrapolates (linearly) past the time limit. */
function predictedTooSlow(
  previous: { n: number; ms: number } | undefined,
  n: number,
  timeoutMs: number,
): boolean {
  return (
    previous !== undefined && (!Number.isFinite(previous.ms) || (previous.ms * n) / previous.n > timeoutMs)
  );
}

/** Runs every (size, implementation) in a child; skips a peer whose previous size extrapolates past the limit. */
async function runAll(sizes: number[], impls: Impl[], runs: number, timeoutMs: number): Promise<Results> {
  const script = fileURLToPath(import.meta.url);
  const skipped = `skipped (>${timeoutMs / 60_000} min)`;
  const results: Results = new Map();
  const last = new Map<Impl, { n: number; ms: number }>();
  for (const n of sizes) {
    for (const impl of impls) {
      if (predictedTooSlow(last.get(impl), n, timeoutMs)) {
        results.set(key(impl, n), skipped);
        last.set(impl, { n, ms: Number.POSITIVE_INFINITY });
        continue;
      }
      process.stderr.write(`  ${impl} n=${n} …`);
      const outcome = await runChild<ChildResult>(
        script,
        ['--child', impl, String(n), String(runs), ...process.argv.filter((a) => a === '--rope-keys')],
        timeoutMs,
      );
      const value: Outcome = outcome.ok
        ? outcome.result
        : outcome.reason === 'timeout'
          ? skipped
          : outcome.reason;
      results.set(key(impl, n), value);
      last.set(impl, { n, ms: outcome.ok ? (outcome.result.runsMs[0] as number) : Number.POSITIVE_INFINITY });
      process.stderr.write(` ${typeof value === 'string' ? value : formatMs(median(value.runsMs))}\n`);
    }
  }
  return results;
}

function buildRow(
  n: number,
  impl: Impl,
  r: Outcome | undefined,
  ours: ChildResult | undefined,
  peer: ChildResult | undefined,
): Cell[] {
  if (typeof r !== 'object') return [formatNumber(n), impl, (r ?? 'not run').slice(0, 60)];
  const ms = median(r.runsMs);
  const phases = Object.entries(r.phasesMs)
    .map(([k, v]) => `${k} ${formatMs(v)}`)
    .join(', ');
  const rootCheck =
    impl === 'merkletreejs-jito' && ours
      ? r.root === ours.root
        ? '; root = ours ✓'
        : '; ROOT ≠ ours ✗'
      : '';
  return [
    formatNumber(n),
    impl,
    formatMs(ms),
    formatMs(median(r.cpuMs)),
    ours ? formatRatio(ms / median(ours.runsMs)) : undefined,
    peer ? formatRatio(median(peer.runsMs) / ms) : undefined,
    formatBytes(r.peakRss),
    ours ? formatRatio(r.peakRss / ours.peakRss) : undefined,
    formatBytes(r.baseRss),
    `${phases}${rootCheck}`,
  ];
}

function proofRow(n: number, impl: Impl, r: ChildResult): Cell[] {
  return [
    formatNumber(n),
    impl,
    formatNumber(r.proofsPerSecond),
    formatNumber(r.verifiesPerSecond),
    r.servedPerSecond === undefined ? undefined : formatNumber(r.servedPerSecond),
    r.proofFailures === 0 ? undefined : `${r.proofFailures} of ${Math.min(n, 1000)}`,
  ];
}

function floorRow(n: number, impl: Impl, r: ChildResult, op64: OpensslRate, bulk: OpensslRate): Cell[] {
  const c = compressions(n);
  const floor64 = (c / op64.opsPerSecond) * 1000;
  const floorBulk = (c / (bulk.bytesPerSecond / 64)) * 1000;
  const tree = r.phasesMs['leaves+tree'] ?? (r.phasesMs.leaves as number) + (r.phasesMs.tree as number);
  const total = median(r.runsMs);
  return [
    formatNumber(n),
    treeDepth(n),
    formatNumber(c),
    formatMs(floor64),
    formatMs(floorBulk),
    impl,
    formatMs(tree),
    formatRatio(tree / floor64),
    formatRatio(tree / floorBulk),
    formatRatio(total / floor64),
  ];
}

async function parentMain(): Promise<void> {
  const sizes = option('sizes', '10000,100000,1000000').split(',').map(Number);
  const impls = option('impls', IMPLS.join(',')).split(',') as Impl[];
  const runs = Number(option('runs', '3'));
  const timeoutMs = Number(option('timeout-min', '5')) * 60_000;

  console.log(`# Merkle snapshot benchmark — ${new Date().toISOString()}`);
  console.log(`command: npx tsx bench/merkle.ts ${process.argv.slice(2).join(' ')}`.trim());
  console.log(
    `node ${process.version}, ${cpus()[0]?.model ?? 'cpu?'} × ${cpus().length}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; build = median of ${runs} runs (1 when a run exceeds 20 s)`,
  );
  console.log('sha256: node:crypto, one call per hash, one thread');
  const op64 = opensslSha256Rate(64);
  const bulk = opensslSha256Rate(16384);
  if (op64 && bulk) {
    console.log(`${op64.command}: ${formatNumber(op64.opsPerSecond)} 64-byte messages/s`);
    console.log(`${bulk.command}: ${formatNumber(bulk.bytesPerSecond / 64)} 64-byte blocks/s`);
  } else {
    console.log('openssl not found: floor skipped');
  }

  const results = await runAll(sizes, impls, runs, timeoutMs);
  const resultAt = (impl: Impl, n: number) => {
    const r = results.get(key(impl, n));
    return typeof r === 'object' ? r : undefined;
  };
  const buildRows = sizes.flatMap((n) =>
    impls.map((impl) =>
      buildRow(n, impl, results.get(key(impl, n)), resultAt('ours', n), resultAt('merkletreejs', n)),
    ),
  );
  const proofRows = sizes.flatMap((n) =>
    impls.flatMap((impl) => {
      const r = results.get(key(impl, n));
      return typeof r === 'object' ? [proofRow(n, impl, r)] : [];
    }),
  );
  printTable(
    'Build time and process CPU time (medians; CPU counts V8 GC threads too) and peak RSS, each implementation in its own process',
    [
      'holders',
      'implementation',
      'build',
      'CPU',
      'time vs ours',
      'merkletreejs ÷ this',
      'peak RSS',
      'RSS vs ours',
      'RSS before build',
      'phases',
    ],
    buildRows,
  );
  if (op64 && bulk) {
    const floorRows = sizes.flatMap((n) => {
      const r = resultAt('ours', n);
      return r ? [floorRow(n, 'ours', r, op64, bulk)] : [];
    });
    printTable(
      'Floor = sha256 compressions of the tree ÷ native rate of ONE core; "64-byte" uses the openssl -bytes 64 message rate (the issue\'s definition), "bulk" the -bytes 16384 block rate (no per-call cost). On T cores the floor is these ÷ T',
      [
        'holders',
        'depth',
        'compressions',
        'floor (64-byte)',
        'floor (bulk)',
        'implementation',
        'leaves + tree',
        '÷ floor (64-byte)',
        '÷ floor (bulk)',
        'incl. sort ÷ floor (64-byte)',
      ],
      floorRows,
    );
  }
  printTable(
    'Proofs (random leaves, ~1 s each). served = readProof from the stored objects, index.bin cached (1 ranged read + bucket re-hash)',
    [
      'holders',
      'implementation',
      'proofs/s',
      'verifications/s',
      'served proofs/s',
      'own proofs failing own verify',
    ],
    proofRows,
  );
}

if (process.argv[2] === '--child') {
  await childMain(process.argv[3] as Impl, Number(process.argv[4]), Number(process.argv[5] ?? '1'));
} else {
  await parentMain();
}
