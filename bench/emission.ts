// Game coin emission of one day with many players: the pure part of settleCoinEmission (lib/snapshots/
// emission-math.ts) — the pro-rata split by wallet with largest remainders, the allocation digest frozen with the
// day's intent, and the cut into 99-wallet chunk transactions. Not a test; the DynamoDB writes (~n/99
// transactions of ≤ 100 items) are not timed here.
//
//   npx tsx bench/emission.ts [--players 100000] [--runs 5]
import { loadavg } from 'node:os';
import { allocationDigest, EMISSION_POOL, splitByPoints } from '../lib/snapshots/index.js';
import { peakRssBytes, resetPeakRss, rssBytes } from './lib/memory.js';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const players = arg('players', 100_000);
const runs = arg('runs', 5);

// Distinct 44-character wallets, random points 1 … 100 000.
const input = Array.from({ length: players }, (_, i) => ({
  userId: `user-${i}`,
  wallet: `W${i.toString(36).padStart(43, '0')}`,
  points: 1 + Math.floor(Math.random() * 100_000),
}));
const share = EMISSION_POOL / 30n;

const times: number[] = [];
let peak = 0;
const before = rssBytes();
for (let r = 0; r < runs; r++) {
  resetPeakRss();
  const started = process.hrtime.bigint();
  const shares = splitByPoints(share, input);
  const digest = allocationDigest(shares);
  const chunks = Math.ceil(shares.length / 99);
  times.push(Number(process.hrtime.bigint() - started) / 1e6);
  peak = Math.max(peak, peakRssBytes());
  const total = shares.reduce((sum, s) => sum + s.amount, 0n);
  if (total !== share) throw new Error(`split lost units: ${total} of ${share}`);
  if (r === 0)
    console.log(`wallets ${shares.length}, chunk transactions ${chunks}, digest ${digest.slice(0, 16)}…`);
}
times.sort((a, b) => a - b);
const mib = (b: number) => (b / 2 ** 20).toFixed(0);
console.log(
  `players ${players}: split + digest median ${times[Math.floor(times.length / 2)]?.toFixed(0)} ms ` +
    `(min ${times[0]?.toFixed(0)}, max ${times.at(-1)?.toFixed(0)}, ${runs} runs); RSS before ${mib(before)} MiB, ` +
    `peak ${mib(peak)} MiB; load average ${loadavg()[0]?.toFixed(1)}`,
);
