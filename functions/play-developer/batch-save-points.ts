import { hmacOnly } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { batchSavePoints, batchSavePointsContract } from '../../lib/play/index.js';
import { configuredDirectory } from '../../lib/user/index.js';

const deps = { directory: configuredDirectory() };

export const handler = route(
  batchSavePointsContract,
  async ({ auth, body }) => ({ data: await batchSavePoints(auth, body, deps) }),
  hmacOnly,
);
