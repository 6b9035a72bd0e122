// Settlement of one game with 100 000 players of the day: ordering the frozen board and the allocation (pure,
// in process), then the writes of the freeze (the players in 2 000-row chunks, BatchWriteItem) and reading them
// back (what the emission port receives), against DynamoDB Local.  npx tsx bench/run.ts settlement [players]
// Not measured here: reading the board from the play table (100 000 items through the daily-board index) and the
// wallets (1 000 BatchGetItem of 100); see docs/settlement.md.
import { randomUUID } from 'node:crypto';
import { startStack } from '../scripts/stack/index.js';
import { peakRssBytes, resetPeakRss, rssBytes } from './lib/memory.js';
import { renderTable } from './lib/table.js';

const PLAYERS = Number(process.argv[2] ?? 100_000);
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const rows: string[][] = [];
const time = async <T>(phase: string, fn: () => Promise<T> | T, note = ''): Promise<T> => {
  resetPeakRss();
  const before = rssBytes();
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await fn();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  rows.push([
    phase,
    `${ms.toFixed(0)} ms`,
    `${((used.user + used.system) / 1000).toFixed(0)} ms`,
    mib(peakRssBytes()),
    mib(Math.max(0, peakRssBytes() - before)),
    note,
  ]);
  return result;
};

const stack = await startStack({
  offline: false,
  log: { info: () => {}, warn: () => {}, error: console.error, debug: () => {} },
});
// No serverless offline here: a placeholder public URL satisfies the settings (nothing links to it).
Object.assign(process.env, stack.functionEnv, stack.env, { POWERTOOLS_LOG_LEVEL: 'SILENT' });
process.env.PUBLIC_API_URL ||= 'http://127.0.0.1:3000';

try {
  const { allocateDay, byRank, distributionRule, putPlayerChunks, readPlayers } = await import(
    '../lib/rewards/index.js'
  );

  // The board as the play domain pages it (points descending, ties unordered), with wallets.
  const board = Array.from({ length: PLAYERS }, (_, i) => ({
    arcId: randomUUID(),
    points: Math.floor(1_000_000 / (1 + i / 50)),
    reachedAt: new Date(Date.UTC(2031, 0, 1) + ((i * 7919) % 86_400_000)).toISOString(),
  }));
  const wallets = new Map(board.map((s) => [s.arcId, `W${s.arcId.replaceAll('-', '').slice(0, 43)}`]));

  const ranked = await time('order the board (byRank)', () => [...board].sort(byRank));
  const players = await time('frozen players (userId, wallet, points)', () =>
    ranked.map((s) => ({ userId: s.arcId, wallet: wallets.get(s.arcId) ?? null, points: s.points })),
  );
  const allocation = await time('allocateDay (pure)', () =>
    allocateDay({
      undistributed: 500_000_000_000n,
      vaultReserve: 890_880n,
      creatorSplit: { [randomUUID()]: 6_000, [randomUUID()]: 4_000 },
      ranked: ranked.slice(0, 10),
      carried: new Map(),
      wallets: new Map(ranked.slice(0, 10).map((s) => [s.arcId, { address: 'x', balance: 1n }])),
      rentExemptMinimum: 890_880n,
      fee: 5_000n,
      rule: distributionRule,
    }),
  );
  const gameId = randomUUID();
  const day = '2031-01-01';
  const freezeId = randomUUID();
  const chunks = await time(
    'write the frozen players (BatchWriteItem)',
    () => putPlayerChunks(gameId, day, freezeId, players),
    'DynamoDB Local',
  );
  const back = await time(
    'read them back (GetItem per chunk)',
    () => readPlayers({ gameId, day, freezeId, chunks }),
    'DynamoDB Local',
  );
  if (back.length !== PLAYERS || allocation.lines.length !== 12) throw new Error('bench sanity check failed');
  console.log(
    `${PLAYERS} players, ${chunks} chunk items, ${allocation.lines.length} payout lines, ` +
      `allocated ${allocation.allocated} lamports\n`,
  );
  console.log(renderTable(['phase', 'wall', 'CPU', 'peak RSS', 'peak RSS growth', 'note'], rows));
} finally {
  await stack.stop();
}
