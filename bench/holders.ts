// A snapshot of an airdrop token with a million holders, end to end through the local chain: the real chain
// reader pages the holders (partitioned getProgramAccounts, or getProgramAccountsV2 with a cursor), the real
// builder allocates, merges the round, builds the tree and serializes the objects (kept in memory here instead
// of S3). The chain runs in its own process (litesvm and its indexes are not the builder's memory); each source
// is measured in a fresh process: pages, wall time of the read and of the build, peak RSS and heap. With
// `--fault-rate`, each source is read a second time with that share of its pages failing once (the local chain's
// flaky pages: 429, 503, -32016, a late answer, in turn) and the two snapshot roots are compared.
//
//   npx tsx bench/holders.ts [--holders 1000000] [--page-size 5000] [--sources rpc,helius] [--fault-rate 0.01]
import { execFile, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { promisify } from 'node:util';
import bs58 from 'bs58';
import { type HoldersSource, isOnCurve, makeChainReader, type TokenHolders } from '../lib/chain/index.js';
import { type BuilderDeps, buildSnapshot } from '../lib/snapshots/index.js';
import { startLocalChain } from '../scripts/chain/rpc-server.js';
import { putMint, putTokenAccount } from '../scripts/chain/seed.js';
import { peakRssBytes, resetPeakRss, rssBytes } from './lib/memory.js';

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] as string) : fallback;
};
const mib = (b: number) => (b / 2 ** 20).toFixed(0);
const SUPPLY = 1_000_000_000_000_000n;

/** Chain process: a mint with `holders` wallets (10 % with a second account) and a few off-curve (PDA) holders. */
const serve = async () => {
  const holders = Number(arg('holders', '1000000'));
  const chain = await startLocalChain({ port: 0 });
  const mint = bs58.encode(randomBytes(32));
  putMint(chain.ledger, mint, { supply: SUPPLY });
  const started = Date.now();
  let seeded = 0;
  while (seeded < holders) {
    const key = randomBytes(32);
    if (!isOnCurve(key)) {
      if (seeded < 10) putTokenAccount(chain.ledger, bs58.encode(randomBytes(32)), mint, key, 1_000_000_000n);
      continue;
    }
    // The sign bit does not change whether y is on the curve: two wallets per check.
    for (const owner of [key, Buffer.from(key).fill((key[31] as number) ^ 0x80, 31)]) {
      if (seeded >= holders) break;
      const amount = BigInt(1 + (seeded % 1000)) * 1_000_000n;
      putTokenAccount(chain.ledger, bs58.encode(randomBytes(32)), mint, owner, amount);
      if (seeded % 10 === 0)
        putTokenAccount(chain.ledger, bs58.encode(randomBytes(32)), mint, owner, 1_000_000n);
      seeded++;
    }
  }
  process.send?.({ url: chain.url, mint, seededMs: Date.now() - started });
  process.on('message', async (message: { flaky?: number } | string) => {
    if (typeof message === 'object' && message.flaky !== undefined) {
      chain.setFlaky(
        message.flaky > 0
          ? {
              methods: ['getProgramAccounts', 'getProgramAccountsV2'],
              rate: message.flaky,
              seed: String(Date.now()),
            }
          : undefined,
      );
      process.send?.({ flaky: message.flaky, traffic: chain.traffic(true) });
      return;
    }
    await chain.stop();
    process.exit(0);
  });
};

/** Measuring process: one source, one snapshot build, numbers as JSON on stdout. */
const measure = async () => {
  const url = arg('url', '');
  const mint = arg('mint', '');
  const source = arg('source', 'rpc') as HoldersSource;
  const pageSize = Number(arg('page-size', '5000'));
  // A late answer (the flaky pages' `timeout`, 2 s) must end the call: 30 s is far above a page's read here.
  const reader = makeChainReader({ rpcUrl: url, requestTimeoutMs: 30_000, holders: { source, pageSize } });
  const coinMint = arg('coin', bs58.encode(randomBytes(32)));
  const objects = new Map<string, Uint8Array>();
  let summary: Parameters<BuilderDeps['putSummaryIfNewer']>[0] | undefined;
  let read: { ms: number; holders: TokenHolders } | undefined;
  let heapPeak = 0;
  const deps: BuilderDeps = {
    chain: {
      getSlot: () => reader.getSlot(),
      getMint: async (m) =>
        String(m) === coinMint
          ? ({ address: coinMint, decimals: 6, supply: SUPPLY } as Awaited<ReturnType<typeof reader.getMint>>)
          : reader.getMint(m),
      listTokenHolders: async (m, options) => {
        const started = performance.now();
        const holders = await reader.listTokenHolders(m, options);
        read = { ms: performance.now() - started, holders };
        heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
        return holders;
      },
    },
    findCoin: async () => ({
      coinMint,
      gameId: 'bench',
      airdropMint: mint,
      vaultAddress: null,
      emissionStartAt: '2026-01-01T00:00:00.000Z',
      emissionDays: 1,
    }),
    putObjects: async (list) => {
      heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
      for (const o of list) objects.set(o.key, o.body as Uint8Array);
    },
    getObject: async (key) => objects.get(key),
    getSummary: async () => summary,
    putSummaryIfNewer: async (next) => {
      summary = next;
      return true;
    },
    now: () => new Date('2026-02-01T00:00:00.000Z'),
  };
  const before = rssBytes();
  resetPeakRss();
  const started = performance.now();
  const outcome = await buildSnapshot(coinMint, deps);
  const totalMs = performance.now() - started;
  if (outcome.status !== 'created' || !read) throw new Error(`build ${outcome.status}`);
  process.stdout.write(
    `${JSON.stringify({
      source,
      pageSize,
      pages: read.holders.pages,
      retries: read.holders.retries,
      root: outcome.summary.merkleRoot,
      holders: read.holders.count,
      leaves: outcome.summary.holderCount,
      readSlots: outcome.summary.readSlots,
      readMs: Math.round(read.ms),
      buildMs: Math.round(totalMs - read.ms),
      rssBeforeMiB: Number(mib(before)),
      peakRssMiB: Number(mib(peakRssBytes())),
      heapPeakMiB: Number(mib(heapPeak)),
    })}\n`,
  );
};

const main = async () => {
  const holders = arg('holders', '1000000');
  const pageSize = arg('page-size', '5000');
  const sources = arg('sources', 'rpc,helius').split(',');
  const file = new URL(import.meta.url).pathname;
  const chain = fork(file, ['--serve', '--holders', holders], { execArgv: process.execArgv });
  const ready = await new Promise<{ url: string; mint: string; seededMs: number }>((resolve, reject) => {
    chain.once('message', (m) => resolve(m as { url: string; mint: string; seededMs: number }));
    chain.once('exit', (code) => reject(new Error(`chain process exited ${code}`)));
  });
  console.log(
    `seeded ${holders} holders (+10 % second accounts, a few off-curve owners) in ${(ready.seededMs / 1000).toFixed(0)} s`,
  );
  const faultRate = Number(arg('fault-rate', '0'));
  const coin = bs58.encode(randomBytes(32));
  type Traffic = { served: Record<string, number | undefined>; flaky: Record<string, number> };
  /** Tells the chain process to make pages flaky (0: none) and returns what it served since the last call. */
  const flaky = (rate: number) =>
    new Promise<{ traffic: Traffic }>((resolve) => {
      chain.once('message', (m) => resolve(m as { traffic: Traffic }));
      chain.send({ flaky: rate });
    });
  const run = async (source: string) => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        ...process.execArgv,
        file,
        '--measure',
        ...['--url', ready.url, '--mint', ready.mint, '--source', source, '--page-size', pageSize],
        ...['--coin', coin],
      ],
      { maxBuffer: 1 << 20 },
    );
    const r = JSON.parse(stdout.trim().split('\n').at(-1) as string);
    console.log(
      `${r.source} (page ${r.pageSize}): ${r.pages} pages, ${r.retries} pages read again, ${r.holders} holders → ` +
        `${r.leaves} leaves, slots ${r.readSlots.first}–${r.readSlots.last}; read ${(r.readMs / 1000).toFixed(1)} s, ` +
        `build ${(r.buildMs / 1000).toFixed(1)} s; RSS before ${r.rssBeforeMiB} MiB, peak ${r.peakRssMiB} MiB ` +
        `(bound 512), heap at the read's end ${r.heapPeakMiB} MiB; root ${String(r.root).slice(0, 16)}…; ` +
        `load average ${loadavg()[0]?.toFixed(1)}`,
    );
    if (r.peakRssMiB >= 512) process.exitCode = 1;
    return r as { root: string; pages: number; retries: number };
  };
  try {
    for (const source of sources) {
      const clean = await run(source);
      if (!(faultRate > 0)) continue;
      await flaky(faultRate);
      const faulty = await run(source);
      const { traffic } = await flaky(0);
      const failed = Object.values(traffic.flaky).reduce((a, b) => a + b, 0);
      const served = (traffic.served.getProgramAccounts ?? 0) + (traffic.served.getProgramAccountsV2 ?? 0);
      const same = faulty.root === clean.root;
      console.log(
        `${source} with ${faultRate * 100} % of pages failing once: ${failed} of ${served} page requests failed ` +
          `(${JSON.stringify(traffic.flaky)}), ${faulty.retries} read again; completed; root ` +
          `${same ? 'equals' : 'DIFFERS FROM'} the fault-free root`,
      );
      if (!same) process.exitCode = 1;
    }
  } finally {
    chain.send('stop');
  }
};

if (process.argv.includes('--serve')) await serve();
else if (process.argv.includes('--measure')) await measure();
else await main();
