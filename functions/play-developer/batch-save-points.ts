import { hmacOnly } from '../../lib/auth/authenticators.js';
import { route } from '../../lib/http/route.js';
import { configuredDirectory } from '../../lib/identity/directory.js';
import { batchSavePointsContract } from '../../lib/play/contracts.js';
import { batchSavePoints } from '../../lib/play/save-points.js';

const deps = { directory: configuredDirectory() };

export const handler = route(
  batchSavePointsContract,
  async ({ auth, body }) => ({ data: await batchSavePoints(auth, body, deps) }),
  hmacOnly,
);
