// New players at launch-day scale: POST /play/dev/batch-save-points of 100 never-seen players against the same
// 100 players saved again (known), through serverless offline, with the import queue consumed as `npm run dev`
// consumes it (the worker importing into the local identity provider, under its 240-a-minute creation limit);
// then 5 concurrent clients (game servers) × 20 batches of 100 new players each, counting the answers by status.
//   npx tsx bench/run.ts new-players
// Prints figures; asserts nothing about timings.
import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { startStack } from '../scripts/stack/index.js';
import { renderTable } from './lib/table.js';

const PAIRS = 8;
const CLIENTS = 5;
const BATCHES = 20;

const stack = await startStack({
  offline: true,
  sqsEventSources: true,
  log: { info: () => {}, warn: () => {}, error: console.error, debug: () => {} },
});
Object.assign(process.env, stack.functionEnv, stack.env, { POWERTOOLS_LOG_LEVEL: 'SILENT' });

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

try {
  const { createDeveloper, hmacHeaders } = await import('../tests/helpers/users.js');
  const { registerGame } = await import('../tests/helpers/games.js');
  const base = stack.env.API_BASE_URL ?? '';
  const path = '/play/dev/batch-save-points';
  const newPlayers = () =>
    Array.from({ length: 100 }, (_, i) =>
      i % 2 === 0
        ? `sol:${bs58.encode(randomBytes(32))}`
        : `email:${randomBytes(6).toString('hex')}@example.com`,
    );

  let skew = 0;
  /** One save of these players for a developer's game, paced under the 3-a-second limit of its API key. */
  const client = async () => {
    const dev = await createDeveloper();
    const game = await registerGame(dev);
    let last = 0;
    return async (players: string[]) => {
      const wait = last + 350 - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      last = Date.now();
      skew = (skew + 1) % 100_000;
      const started = performance.now();
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...hmacHeaders(dev, 'POST', path, { timestamp: Date.now() - skew }),
        },
        body: JSON.stringify({
          gameId: game.id,
          entries: players.map((playerId) => ({ playerId, points: 1 })),
        }),
      });
      await res.arrayBuffer();
      return { status: res.status, ms: performance.now() - started };
    };
  };

  // 1. The same run, one client: each batch of 100 new players, then the same 100 again (known by then).
  const one = await client();
  await one(newPlayers()); // warm-up: loads the function
  const newMs: number[] = [];
  const knownMs: number[] = [];
  for (let i = 0; i < PAIRS; i++) {
    const players = newPlayers();
    const first = await one(players);
    const again = await one(players);
    if (first.status !== 200 || again.status !== 200)
      throw new Error(`a paired save answered ${first.status} / ${again.status}`);
    newMs.push(first.ms);
    knownMs.push(again.ms);
  }
  const p50New = percentile(newMs, 50);
  const p50Known = percentile(knownMs, 50);
  console.log(
    renderTable(
      ['batch of 100 players', 'saves', 'p50', 'p95', 'players / s (p50)'],
      [
        [
          'new (never seen)',
          PAIRS,
          `${p50New.toFixed(0)} ms`,
          `${percentile(newMs, 95).toFixed(0)} ms`,
          (100_000 / p50New).toFixed(0),
        ],
        [
          'known (the same, again)',
          PAIRS,
          `${p50Known.toFixed(0)} ms`,
          `${percentile(knownMs, 95).toFixed(0)} ms`,
          (100_000 / p50Known).toFixed(0),
        ],
      ],
    ),
  );
  console.log(`\nnew / known (p50): ${(p50New / p50Known).toFixed(2)}× (target ≤ 2×)\n`);

  // 2. Launch day: 5 game servers at once, each 20 batches of 100 new players.
  const clients = await Promise.all(Array.from({ length: CLIENTS }, client));
  const started = performance.now();
  const answers = (
    await Promise.all(
      clients.map(async (save) => {
        const out: Array<{ status: number; ms: number }> = [];
        for (let b = 0; b < BATCHES; b++) out.push(await save(newPlayers()));
        return out;
      }),
    )
  ).flat();
  const seconds = (performance.now() - started) / 1000;
  const byStatus = new Map<number, number>();
  for (const a of answers) byStatus.set(a.status, (byStatus.get(a.status) ?? 0) + 1);
  const saved = (byStatus.get(200) ?? 0) * 100;
  const ms = answers.map((a) => a.ms);
  console.log(
    renderTable(
      ['clients × batches', 'answers by status', '5xx', 'p50', 'p95', 'new players saved / s'],
      [
        [
          `${CLIENTS} × ${BATCHES} × 100 new`,
          [...byStatus].map(([status, n]) => `${status}: ${n}`).join(', '),
          answers.filter((a) => a.status >= 500).length,
          `${percentile(ms, 50).toFixed(0)} ms`,
          `${percentile(ms, 95).toFixed(0)} ms`,
          (saved / seconds).toFixed(0),
        ],
      ],
    ),
  );
  console.log(
    '\nThe saves queue their players for import: the worker imports them into the local provider in the' +
      " background, 20 a request, at the provider's pace (240 creations a minute): a save never waits for it.",
  );
} finally {
  await stack.stop();
}
