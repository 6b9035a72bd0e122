// `npm run settle -- [--day YYYY-MM-DD] [--game <id>]` settles (game, day) now against the running `npm run dev`
// stack, with the same code the settleGameDays function runs (its side effects, the same environment), the
// settlement delay waived: any day, today included, for local trials. Without --game, every game with players on
// that day; without --day, today (UTC). A settled day is replayed (nothing is paid twice).
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadServerlessConfig } from './stack/config.js';
import { applyDevFunctionEnvironment } from './stack/dev-environment.js';

const { values } = parseArgs({ options: { day: { type: 'string' }, game: { type: 'string' } } });
const day = values.day ?? new Date().toISOString().slice(0, 10);
if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`))) {
  console.error(`--day must be a UTC day YYYY-MM-DD, not "${day}"`);
  process.exit(2);
}

// The function's environment as `npm run invoke` builds it: provider's, then its own, resolved by the stack.
const FUNCTION = 'settleGameDays';
const root = resolve(import.meta.dirname, '..');
const config = await loadServerlessConfig(root);
applyDevFunctionEnvironment(root, config, FUNCTION);

// Imported once the environment is set: the function parses its settings when it loads.
const { sideEffects } = await import('../functions/settlement/settle-game-days.js');
const { settleGameDay } = await import('../lib/rewards/index.js');
const { gamesActiveOn } = await import('../lib/play/index.js');
const games = values.game ? [values.game] : await gamesActiveOn(day);
if (games.length === 0) console.log(`no game had a score on ${day}`);
for (const gameId of games) {
  const outcome = await settleGameDay(gameId, day, sideEffects, { force: true });
  if (outcome.status !== 'settled') continue;
  const { settlement } = outcome;
  console.log(
    JSON.stringify(
      {
        gameId,
        day,
        replayed: outcome.replayed,
        players: settlement.players,
        allocatedLamports: settlement.allocated,
        lines: settlement.lines.map((l) => ({
          arcId: l.arcId,
          roles: l.roles,
          rank: l.rank,
          sentLamports: l.send,
          carriedOutLamports: l.carryOut,
          wallet: l.wallet,
        })),
      },
      null,
      2,
    ),
  );
}
