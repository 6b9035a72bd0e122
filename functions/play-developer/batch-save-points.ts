import { bearerOrHmac } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { batchSavePoints, batchSavePointsContract } from '../../lib/play/index.js';
import { configuredDirectory, queueImports } from '../../lib/user/index.js';

// New players are imported into the identity provider through the import queue, never during the save.
const deps = { directory: configuredDirectory(), imports: queueImports };

export const handler = route(
  batchSavePointsContract,
  async ({ auth, body }) => ({ data: await batchSavePoints(auth, body, deps) }),
  bearerOrHmac,
);
