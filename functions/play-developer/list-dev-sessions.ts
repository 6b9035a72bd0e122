import { hmacOnly } from '../../lib/auth/authenticators.js';
import { route } from '../../lib/http/route.js';
import { listDevSessionsContract } from '../../lib/play/contracts.js';
import { devSessions } from '../../lib/play/queries.js';

export const handler = route(
  listDevSessionsContract,
  async ({ auth, params, query }) => devSessions(auth, params.gameId, query),
  hmacOnly,
);
