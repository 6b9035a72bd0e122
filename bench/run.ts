// Runs every benchmark of bench/ in sequence, each in its own process (so one's memory and JIT state do not
// colour the next), and stops at the first that fails.  npx tsx bench/run.ts [name…]
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const ALL = [
  'merkle',
  'statement',
  'cold-start',
  'dynamodb-cost',
  'cost',
  'throughput',
  'save-phases',
  'settlement',
  'settlement-schedule',
  'leaderboard',
  'holders',
  'new-players',
];
const wanted = process.argv.slice(2).length ? process.argv.slice(2) : ALL;

for (const name of wanted) {
  const file = new URL(`./${name}.ts`, import.meta.url).pathname;
  if (!existsSync(file)) {
    console.log(`\n## ${name}: not implemented yet (bench/${name}.ts missing), skipped`);
    continue;
  }
  console.log(`\n## ${name}\n`);
  const result = spawnSync(process.execPath, [...process.execArgv, file], { stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`bench/${name}.ts failed (exit ${result.status})`);
    process.exit(result.status ?? 1);
  }
}
