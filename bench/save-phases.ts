// Where a batch save's time goes: 100 known players saved in process (no serverless offline), one game at a time
// and six games at once, with the time of each DynamoDB command summed by kind.
//   npx tsx bench/run.ts save-phases
import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { startStack } from '../scripts/stack/index.js';

const stack = await startStack({
  offline: false,
  log: { info: () => {}, warn: () => {}, error: console.error, debug: () => {} },
});
Object.assign(process.env, stack.functionEnv, stack.env, {
  POWERTOOLS_LOG_LEVEL: 'SILENT',
  POWERTOOLS_METRICS_DISABLED: 'true',
  PUBLIC_API_URL: 'http://127.0.0.1',
});

try {
  const { dynamo } = await import('../lib/adapters/dynamodb.js');
  const { createDeveloper } = await import('../tests/helpers/users.js');
  const { registerGame } = await import('../tests/helpers/games.js');
  const { batchSavePoints } = await import('../lib/play/index.js');
  const { configuredDirectory, queueImports } = await import('../lib/user/index.js');
  // As the function wires it: new players' provider import queued, never during the save.
  const deps = { directory: configuredDirectory(), imports: queueImports };
  const calls: Array<{ name: string; ms: number }> = [];
  dynamo().middlewareStack.add(
    (next, context) => async (args) => {
      const started = performance.now();
      try {
        return await next(args);
      } finally {
        calls.push({
          name: (context as { commandName?: string }).commandName ?? '?',
          ms: performance.now() - started,
        });
      }
    },
    { step: 'initialize', name: 'savePhases' },
  );
  const games = await Promise.all(
    Array.from({ length: 6 }, async () => {
      const dev = await createDeveloper();
      const players = Array.from({ length: 100 }, () => `sol:${bs58.encode(randomBytes(32))}`);
      return { dev, game: await registerGame(dev), players };
    }),
  );
  const save = ({ dev, game, players }: (typeof games)[number]) =>
    batchSavePoints(
      { scheme: 'hmac', userId: dev.arcId },
      { gameId: game.id, entries: players.map((playerId) => ({ playerId, points: 1 })) },
      deps,
    );
  for (const g of games) await save(g); // creates the players: what follows saves known ones
  const phases = () => {
    const by = new Map<string, { n: number; ms: number }>();
    for (const c of calls.splice(0)) {
      const e = by.get(c.name) ?? { n: 0, ms: 0 };
      e.n++;
      e.ms += c.ms;
      by.set(c.name, e);
    }
    return [...by]
      .map(([name, e]) => `${name.replace('Command', '')} ${e.n}× ${(e.ms / e.n).toFixed(0)} ms`)
      .join(', ');
  };
  calls.length = 0;
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    await save(games[0] as (typeof games)[number]);
    console.log(`one game: ${(performance.now() - started).toFixed(0)} ms — ${phases()}`);
  }
  for (let i = 0; i < 3; i++) {
    const started = performance.now();
    await Promise.all(games.map(save));
    const ms = performance.now() - started;
    console.log(
      `six games at once: ${ms.toFixed(0)} ms, ${((600 * 1000) / ms).toFixed(0)} players/s — ${phases()}`,
    );
  }
} finally {
  await stack.stop();
}
