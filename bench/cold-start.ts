// Cold start: per-function bundle size and module init time (fresh Node process that `await import()`s the
// bundle, median of 5) next to baselines built in the same run: an empty handler, and a minimal middy + DynamoDB
// DocumentClient handler built three ways (with serverless.yml's esbuild options; the same with the SDK's
// default credential chain; esbuild's defaults, the ~550 KB CommonJS baseline).
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
// `--runs N` takes more samples per function (default 5).
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Math.max(1, Number(process.argv[runsArg + 1]) || 5) : 5;
// `--only a,b` measures those functions only (the baselines always), e.g. to re-measure rows that moved.
const onlyArg = process.argv.indexOf('--only');
const ONLY = onlyArg > 0 ? new Set((process.argv[onlyArg + 1] ?? '').split(',')) : undefined;
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

/**
 * Module init of one bundle in a fresh `node`: wall and CPU time of `await import(file)` (a `.cjs` bundle is
 * `require`d, as the Lambda runtime loads a CommonJS handler), or why it failed.
 */
function importSample(file: string, env: Record<string, string>): Sample | string {
  // node:module is loaded before the clock starts, and only for the CommonJS baseline: the ES module bundles load
  // it inside their measured init (their banner imports it), so this favours the baseline, never a function.
  const cjs = file.endsWith('.cjs');
  const load = cjs
    ? `createRequire(import.meta.url)(${JSON.stringify(file)})`
    : `await import(${JSON.stringify(`file://${file}`)})`;
  const script = `${cjs ? "import{createRequire}from'node:module';" : ''}const c=process.cpuUsage();const t=performance.now();${load};const w=performance.now()-t;const d=process.cpuUsage(c);process.stdout.write('@@'+w+' '+(d.user+d.system)/1000);`;
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
  /**
   * Per baseline it was paired with: the median CPU time of that baseline's imports, and the median over the
   * runs of (this run's CPU / the baseline sample taken right after it).
   */
  paired?: Array<{ cpu: number; ratio: number } | undefined>;
}

/**
 * RUNS imports of `file`, each followed by one import of every baseline in `pairWith`. Ratios are taken on CPU
 * time (on a shared machine other processes stretch wall-clock times by ±30 % while they wait for a core), per
 * pair: each import against the baseline sample taken right after it, then the median of those ratios, so
 * that load drifting over the seconds of a row cancels out.
 */
function measure(file: string, env: Record<string, string>, pairWith: readonly string[] = []): Measure {
  const own: Sample[] = [];
  const cpus = pairWith.map(() => [] as number[]);
  const ratios = pairWith.map(() => [] as number[]);
  for (let i = 0; i < RUNS; i++) {
    const sample = importSample(file, env);
    if (typeof sample === 'string') return { init: sample };
    own.push(sample);
    pairWith.forEach((baseline, k) => {
      const r = importSample(baseline, env);
      if (typeof r === 'string') return;
      cpus[k]?.push(r.cpu);
      ratios[k]?.push(sample.cpu / r.cpu);
    });
  }
  return {
    init: median(own.map((s) => s.wall)),
    cpu: median(own.map((s) => s.cpu)),
    paired: pairWith.map((_, k) => {
      const r = ratios[k] ?? [];
      return r.length ? { cpu: median(cpus[k] ?? []), ratio: median(r) } : undefined;
    }),
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
  const outfile = join(dir, name);
  await build({
    ...options,
    // Resolved from the project, so @middy/core and the SDK bundle from its node_modules.
    stdin: {
      contents: source,
      resolveDir: PROJECT_ROOT,
      loader: 'ts',
      sourcefile: `${name.replace(/\.[cm]js$/, '')}.ts`,
    },
    absWorkingDir: PROJECT_ROOT,
    outfile,
    logLevel: 'silent',
  });
  return outfile;
}

/** The baselines each function is paired with, in column order: name, and what its ratio column says. */
const PAIRED = [
  {
    name: '(baseline) middy + DocumentClient',
    column: 'CPU vs minimal, built like the functions',
    summary: 'the minimal baseline built like the functions (env-only credentials)',
  },
  {
    name: '(baseline) middy + DocumentClient, SDK default credential chain',
    column: 'vs the same, SDK default credential chain',
    summary: 'the same with the SDK default credential chain',
  },
  {
    name: '(baseline) middy + DocumentClient, esbuild defaults (CommonJS, the ~550 KB baseline)',
    column: 'vs the same, esbuild defaults',
    summary: "the same bundled with esbuild's defaults (CommonJS, minified: the ~550 KB baseline)",
  },
] as const;
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

interface Row extends Measure {
  name: string;
  bytes: number;
  libs: string;
}

/** The table of every bundle with its ratios to the paired baselines, and the summary lines. */
function report(baselines: Row[], rows: Row[]): string {
  const baseCpu = PAIRED.map((p) => baselines.find((b) => b.name === p.name)?.cpu);
  /** A function's paired ratio; a baseline row's ratio of medians. */
  const ratioOf = (row: Row, k: number) => {
    const paired = row.paired?.[k];
    if (paired) return paired.ratio;
    const base = baseCpu[k];
    return row.cpu !== undefined && base !== undefined ? row.cpu / base : undefined;
  };
  const lines = [
    `node ${process.version}; init = median of ${RUNS} fresh processes importing the bundle (wall clock, and CPU time of all threads); each ratio = median over the ${RUNS} runs of the import's CPU time over that of the baseline imported right after it (pairing cancels the machine's load drifting between runs); ⚠ above ${LIMIT}× in the first ratio`,
    '',
    `| function | bundle | init (wall) | init (CPU) | libs | ${PAIRED.map((p) => p.column).join(' | ')} |`,
    `|---|---:|---:|---:|---|${PAIRED.map(() => '---:').join('|')}|`,
  ];
  for (const row of [...baselines, ...rows]) {
    const cells = PAIRED.map((_, k) => {
      const ratio = ratioOf(row, k);
      const flag = k === 0 && ratio !== undefined && ratio > LIMIT && !row.name.startsWith('(') ? ' ⚠' : '';
      return ratio === undefined ? '' : `${formatNumber(ratio, 2)}×${flag}`;
    });
    lines.push(
      `| ${row.name} | ${formatNumber(row.bytes / 1024, 0)} KB | ${typeof row.init === 'number' ? formatMs(row.init) : row.init} | ${row.cpu === undefined ? '' : formatMs(row.cpu)} | ${row.libs} | ${cells.join(' | ')} |`,
    );
  }
  lines.push('');
  PAIRED.forEach((p, k) => {
    const ratios = rows.map((r) => ratioOf(r, k)).filter((r): r is number => r !== undefined);
    const over = rows.filter((r) => (ratioOf(r, k) ?? 0) > LIMIT).map((r) => r.name);
    lines.push(
      `vs ${p.summary}: median ${formatNumber(median(ratios), 2)}×, max ${formatNumber(Math.max(...ratios), 2)}×, ${rows.length - over.length} of ${rows.length} at or under ${LIMIT}×${over.length ? ` (over: ${over.join(', ')})` : ''}`,
    );
  });
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
    // The first baseline is built with the functions' options. The second keeps the SDK's default credential
    // chain (what a minimal handler bundles unless told otherwise; the functions take credentials from the
    // environment only, lib/runtime/aws-credentials.ts). The third is the same handler bundled with esbuild's
    // defaults (CommonJS, package.json `main` first, no alias): 550 KB, the CommonJS baseline. Every
    // function is paired with all three. The last row shows the handler with the SDK left to the runtime.
    const { '@aws-sdk/credential-provider-node': _envCredentials, ...defaultChainAlias } =
      options.alias ?? {};
    const variants: [name: string, file: string, source: string, options: BuildOptions][] = [
      [PAIRED[0].name, 'minimal.mjs', MINIMAL, options],
      ['(baseline) empty handler', 'empty.mjs', EMPTY, options],
      [PAIRED[1].name, 'minimal-default-chain.mjs', MINIMAL, { ...options, alias: defaultChainAlias }],
      [
        PAIRED[2].name,
        'minimal-esbuild-defaults.cjs',
        MINIMAL,
        { bundle: true, minify: true, platform: 'node', target: options.target, format: 'cjs' },
      ],
      [
        '(baseline) middy + DocumentClient, runtime SDK, no alias',
        'minimal-runtime-sdk.mjs',
        MINIMAL,
        { ...options, external: ['@aws-sdk/*'], alias: {}, mainFields: undefined },
      ],
    ];
    const pairWith: string[] = [];
    for (const [name, file, source, opts] of variants) {
      const out = await buildBaseline(baseDir, file, source, opts);
      if (PAIRED.some((p) => p.name === name)) pairWith.push(out);
      baselines.push({ name, bytes: statSync(out).size, ...measure(out, env), libs: '' });
    }
    const zips = readdirSync(pkgDir)
      .filter((f) => f.endsWith('.zip') && (!ONLY || ONLY.has(f.replace(/\.zip$/, ''))))
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
        ...measure(file, env, pairWith),
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
