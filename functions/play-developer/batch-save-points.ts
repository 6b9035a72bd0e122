import { bearerOrHmac } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { batchSavePoints, batchSavePointsContract } from '../../lib/play/index.js';
import { runningPeriods } from '../../lib/tournaments/index.js';
import { configuredDirectory, queueImports } from '../../lib/user/index.js';

// New players are imported into the identity provider through the import queue, never during the save; points
// count into the game's running tournament periods in the same transactions.
const deps = { directory: configuredDirectory(), imports: queueImports, tournaments: runningPeriods };

export const handler = route(
  batchSavePointsContract,
  async ({ auth, body }) => ({ data: await batchSavePoints(auth, body, deps) }),
  bearerOrHmac,
);
