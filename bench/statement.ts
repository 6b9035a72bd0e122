// A payout statement's root: the portable tree (lib/rewards/settlement/statement-tree.ts, WebCrypto's async digest,
// what the SDK runs in a browser) against the snapshots' tree on node:crypto (lib/snapshots/merkle, the baseline)
// over the same leaves. Not a test.   npx tsx bench/statement.ts [--lines 10,100,1000] [--runs 50]
import { parseArgs } from 'node:util';
import {
  allocateDay,
  dayStatement,
  statementItems,
  statementLeaf,
  statementRoot,
} from '../lib/rewards/index.js';
import { buildTree } from '../lib/snapshots/index.js';

const { values } = parseArgs({
  options: { lines: { type: 'string', default: '10,100,1000' }, runs: { type: 'string', default: '50' } },
});
const runs = Number(values.runs);

/** A day whose rule pays `ranks` players (and one creator): a statement of ranks + 1 lines. */
const statementOf = (ranks: number) => {
  const ranked = Array.from({ length: ranks }, (_, i) => ({ arcId: `player-${i}`, points: 1_000_000 - i }));
  const input = {
    undistributed: 10n ** 12n,
    vaultReserve: 890_880n,
    creatorSplit: { creator: 10_000 },
    ranked,
    carried: new Map<string, bigint>(),
    wallets: new Map(ranked.map((p, i) => [p.arcId, { address: `Wallet${i}`.padEnd(44, '1'), balance: 1n }])),
    rentExemptMinimum: 890_880n,
    fee: 5_000n,
    rule: {
      payoutHorizonDays: 30,
      creatorShareBps: 2_000,
      playerShareBps: 8_000,
      playerShareByRankBps: ranked.map(() => Math.floor(10_000 / ranks)),
    },
  };
  const pool = { inflow: String(10n ** 12n), allocated: '0', earmarked: '0' };
  return dayStatement('game', '2026-12-01', pool, input, allocateDay(input).lines);
};

const timed = async (work: () => Promise<unknown> | unknown) => {
  await work();
  const start = performance.now();
  for (let i = 0; i < runs; i++) await work();
  return (performance.now() - start) / runs;
};

console.log('| lines | portable root (ms) | node:crypto tree over the same leaves (ms) | ratio |');
console.log('|------:|-------------------:|-------------------------------------------:|------:|');
for (const ranks of values.lines.split(',').map(Number)) {
  const statement = statementOf(ranks);
  const leaves = await Promise.all(statementItems(statement).map(statementLeaf));
  const portable = await timed(() => statementRoot(statement));
  // The baseline hashes only the tree (the leaves are given), so the ratio is an upper bound of the portable cost.
  const baseline = await timed(() => buildTree(leaves));
  console.log(
    `| ${statement.lines.length} | ${portable.toFixed(2)} | ${baseline.toFixed(3)} | ${(portable / baseline).toFixed(1)}× |`,
  );
}
