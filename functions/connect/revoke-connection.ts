import { bearerOnly } from '../../lib/auth/index.js';
import { revokeConnection, revokeConnectionContract } from '../../lib/connect/index.js';
import { now } from '../../lib/core/time.js';
import { route } from '../../lib/http/route.js';

export const handler = route(
  revokeConnectionContract,
  async ({ auth, params }) => ({ data: await revokeConnection(auth, params.gameId, now()) }),
  bearerOnly,
);
