// Cold start: per-function bundle size and module init time (fresh Node process that `await import()`s the
// bundle, median of 5) next to two baselines built in the same run with the same esbuild options as
// serverless.yml custom.esbuild: an empty handler and a minimal middy + DynamoDB DocumentClient handler.
//
//   npx tsx bench/cold-start.ts            (part of `npm run bench`)
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type BuildOptions, build } from 'esbuild';
import { PROJECT_ROOT, placeholderEnv, type ResolvedService, serverlessPrint } from './lib/sls.js';
import { formatMs, formatNumber } from './lib/table.js';

const run = promisify(execFile);
// `--runs N` takes more samples per function (default 5, as issue 10 asks).
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Math.max(1, Number(process.argv[runsArg + 1]) || 5) : 5;
const LIMIT = 1.2;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

interface Sample {
  /** Wall-clock ms of `await import(file)`. */
  wall: number;
  /** CPU ms (user + system, all threads) the process spent in that import. */
  cpu: number;
}

/** Module init of one bundle in a fresh `node`: wall and CPU time of `await import(file)`, or why it failed. */
function importSample(file: string, env: Record<string, string>): Sample | string {
  const script = `const c=process.cpuUsage();const t=performance.now();await import(${JSON.stringify(`file://${file}`)});const w=performance.now()-t;const d=process.cpuUsage(c);process.stdout.write('@@'+w+' '+(d.user+d.system)/1000);`;
  const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const match = /@@([\d.]+) ([\d.]+)/.exec(out.stdout ?? '');
  if (out.status !== 0 || !match)
    return `import failed: ${(out.stderr ?? '').trim().split('\n').slice(-2).join(' / ')}`;
  return { wall: Number(match[1]), cpu: Number(match[2]) };
}

interface Measure {
  /** Median wall-clock init of the bundle (or why it failed). */
  init: number | string;
  /** Median CPU time of the bundle's init. */
  cpu?: number;
  /** Median CPU time of the reference baseline's runs interleaved with this bundle's. */
  referenceCpu?: number;
  /** The same for the default-credential-chain baseline. */
  defaultChainCpu?: number;
  /** Median over the runs of (this run's CPU / the reference sample taken right after it). */
  ratio?: number;
  /** The same against the default-chain baseline. */
  chainRatio?: number;
}

/**
 * RUNS imports of `file`, each followed by one of `reference` and of `defaultChain` when given. Ratios are taken
 * on CPU time (on a shared machine other processes stretch wall-clock times by ±30 % while they wait for a
 * core), per pair: each import against the baseline sample taken right after it, then the median of those
 * ratios, so that load drifting over the seconds of a row cancels out.
 */
function measure(
  file: string,
  env: Record<string, string>,
  reference?: string,
  defaultChain?: string,
): Measure {
  const own: Sample[] = [];
  const ref: number[] = [];
  const chain: number[] = [];
  const ratios: number[] = [];
  const chainRatios: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const sample = importSample(file, env);
    if (typeof sample === 'string') return { init: sample };
    own.push(sample);
    if (reference) {
      const r = importSample(reference, env);
      if (typeof r !== 'string') {
        ref.push(r.cpu);
        ratios.push(sample.cpu / r.cpu);
      }
    }
    if (defaultChain) {
      const r = importSample(defaultChain, env);
      if (typeof r !== 'string') {
        chain.push(r.cpu);
        chainRatios.push(sample.cpu / r.cpu);
      }
    }
  }
  return {
    init: median(own.map((s) => s.wall)),
    cpu: median(own.map((s) => s.cpu)),
    ...(ref.length ? { referenceCpu: median(ref), ratio: median(ratios) } : {}),
    ...(chain.length ? { defaultChainCpu: median(chain), chainRatio: median(chainRatios) } : {}),
  };
}

/**
 * esbuild options of serverless.yml custom.esbuild minus serverless-esbuild's own keys, so that the baselines
 * are built exactly as the functions are (bundled SDK, mainFields, node:http and credentials aliases, banner).
 */
function esbuildOptions(service: ResolvedService): BuildOptions {
  const { exclude, outputFileExtension, outputWorkFolder, sourcemap, sourcesContent, ...options } =
    service.custom?.esbuild ?? {};
  const excluded = Array.isArray(exclude) ? exclude.filter((e): e is string => typeof e === 'string') : [];
  return { ...(options as BuildOptions), external: excluded };
}

async function buildBaseline(
  dir: string,
  name: string,
  source: string,
  options: BuildOptions,
): Promise<string> {
  const outfile = join(dir, `${name}.mjs`);
  await build({
    ...options,
    // Resolved from the project, so @middy/core and the SDK bundle from its node_modules.
    stdin: { contents: source, resolveDir: PROJECT_ROOT, loader: 'ts', sourcefile: `${name}.ts` },
    absWorkingDir: PROJECT_ROOT,
    outfile,
    logLevel: 'silent',
  });
  return outfile;
}

const DEFAULT_CHAIN = '(baseline) middy + DocumentClient, SDK default credential chain';
const EMPTY = 'export const handler = async () => ({ statusCode: 200, body: "{}" });\n';
const MINIMAL = `import middy from '@middy/core';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
const db = DynamoDBDocumentClient.from(new DynamoDBClient({}));
export const handler = middy(async (event: { id?: string }) => {
  const { Item } = await db.send(new GetCommand({ TableName: process.env.USERS_TABLE, Key: { pk: event.id } }));
  return { statusCode: 200, body: JSON.stringify({ data: Item ?? null }) };
});
`;

function hasCommand(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const formatRatio = (ratio: number | undefined) => (ratio === undefined ? '' : `${formatNumber(ratio, 2)}×`);

interface Row extends Measure {
  name: string;
  bytes: number;
  libs: string;
}

/** The table of every bundle with its ratio to the minimal baseline, and the summary lines. */
function report(baselines: Row[], rows: Row[]): string {
  const minimal = baselines[0]?.cpu;
  const defaultChain = baselines.find((b) => b.name === DEFAULT_CHAIN)?.cpu;
  const ratioOf = (row: Row) => {
    if (row.ratio !== undefined) return row.ratio;
    const base = row.referenceCpu ?? minimal;
    return row.cpu !== undefined && base !== undefined ? row.cpu / base : undefined;
  };
  const chainRatioOf = (row: Row) => {
    if (row.chainRatio !== undefined) return row.chainRatio;
    const base = row.defaultChainCpu ?? defaultChain;
    return row.cpu !== undefined && base !== undefined ? row.cpu / base : undefined;
  };
  const lines = [
    `node ${process.version}; init = median of ${RUNS} fresh processes importing the bundle (wall clock, and CPU time of all threads); ratio = median over the ${RUNS} runs of the import's CPU time over that of the minimal middy + DocumentClient baseline (built like the functions) imported right after it (pairing cancels the machine's load drifting between runs); ⚠ above ${LIMIT}×; last ratio: the same over the baseline with the SDK's default credential chain, also interleaved`,
    '',
    '| function | bundle (.mjs) | init (wall) | init (CPU) | CPU ratio | libs | vs default-chain baseline |',
    '|---|---:|---:|---:|---:|---|---:|',
  ];
  for (const row of [...baselines, ...rows]) {
    const ratio = ratioOf(row);
    const flag = ratio !== undefined && ratio > LIMIT && !row.name.startsWith('(') ? ' ⚠' : '';
    lines.push(
      `| ${row.name} | ${formatNumber(row.bytes / 1024, 0)} KB | ${typeof row.init === 'number' ? formatMs(row.init) : row.init} | ${row.cpu === undefined ? '' : formatMs(row.cpu)} | ${ratio === undefined ? '' : `${formatNumber(ratio, 2)}×${flag}`} | ${row.libs} | ${formatRatio(chainRatioOf(row))} |`,
    );
  }
  const over = rows.filter((r) => (ratioOf(r) ?? 0) > LIMIT);
  const ratios = rows.map(ratioOf).filter((r): r is number => r !== undefined);
  const chainRatios = rows.map(chainRatioOf).filter((r): r is number => r !== undefined);
  lines.push(
    '',
    `ratio median ${formatNumber(median(ratios), 2)}×, max ${formatNumber(Math.max(...ratios), 2)}×`,
    `vs the default-chain baseline: median ${formatNumber(median(chainRatios), 2)}×, ${chainRatios.filter((r) => r <= LIMIT).length} of ${rows.length} at or under ${LIMIT}×`,
    `${over.length} of ${rows.length} functions above ${LIMIT}× the minimal baseline${over.length ? `: ${over.map((r) => r.name).join(', ')}` : ''}`,
  );
  return lines.join('\n');
}

async function main() {
  if (!hasCommand('unzip')) throw new Error('the `unzip` command is required (apt-get install unzip)');
  const service = await serverlessPrint();
  const env = placeholderEnv(service);
  // Inside the project so that the bundles' external @aws-sdk/* imports resolve from node_modules, as the
  // Lambda runtime resolves them from its own SDK.
  const work = mkdtempSync(join(tmpdir(), 'arcadia-cold-'));
  symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(work, 'node_modules'));
  const pkgDir = join(work, 'package');
  try {
    process.stderr.write('packaging (serverless package)…\n');
    await run('serverless', ['package', '--package', pkgDir], { cwd: PROJECT_ROOT, timeout: 300_000 });
    const rows: Row[] = [];
    const baseDir = join(work, 'baselines');
    mkdirSync(baseDir);
    const baselines: Row[] = [];
    const options = esbuildOptions(service);
    // The reference baselines are built with the functions' options. The third keeps the SDK's default
    // credential chain (what a minimal handler bundles unless told otherwise; the functions take credentials
    // from the environment only, lib/runtime/aws-credentials.ts): the second ratio column divides by it. The
    // last shows the same handler built the common way (SDK left to the runtime, no alias) for comparison.
    const { '@aws-sdk/credential-provider-node': _envCredentials, ...defaultChainAlias } =
      options.alias ?? {};
    const variants: [name: string, file: string, source: string, options: BuildOptions][] = [
      ['(baseline) middy + DocumentClient', 'minimal', MINIMAL, options],
      ['(baseline) empty handler', 'empty', EMPTY, options],
      [DEFAULT_CHAIN, 'minimal-default-chain', MINIMAL, { ...options, alias: defaultChainAlias }],
      [
        '(baseline) middy + DocumentClient, runtime SDK, no alias',
        'minimal-runtime-sdk',
        MINIMAL,
        { ...options, external: ['@aws-sdk/*'], alias: {}, mainFields: undefined },
      ],
    ];
    let reference = '';
    let defaultChainFile = '';
    for (const [name, file, source, opts] of variants) {
      const out = await buildBaseline(baseDir, file, source, opts);
      reference ||= out;
      if (name === DEFAULT_CHAIN) defaultChainFile = out;
      baselines.push({ name, bytes: statSync(out).size, ...measure(out, env), libs: '' });
    }
    const zips = readdirSync(pkgDir)
      .filter((f) => f.endsWith('.zip'))
      .sort();
    for (const zip of zips) {
      const name = zip.replace(/\.zip$/, '');
      const dest = join(work, 'fn', name);
      mkdirSync(dest, { recursive: true });
      execFileSync('unzip', ['-q', '-o', join(pkgDir, zip), '-d', dest]);
      const handler = service.functions[name]?.handler ?? '';
      const file = join(dest, `${handler.replace(/\.[^.]+$/, '')}.mjs`);
      const text = readFileSync(file, 'utf8');
      const libs = [
        // String literals that survive minification: @solana/kit's RPC client header, file-type's sqlite MIME
        // type and image-size's error message.
        text.includes('solana-client') ? 'chain' : '',
        text.includes('application/x-sqlite3') || text.includes('disabled file type') ? 'image' : '',
      ]
        .filter(Boolean)
        .join('+');
      rows.push({
        name,
        bytes: statSync(file).size,
        ...measure(file, env, reference, defaultChainFile),
        libs,
      });
      process.stderr.write('.');
    }
    process.stderr.write('\n');
    console.log(report(baselines, rows));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
