import { bearerOrHmac } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { devSessions, listDevSessionsContract } from '../../lib/play/index.js';

export const handler = route(
  listDevSessionsContract,
  async ({ auth, params, query }) => devSessions(auth, params.gameId, query),
  bearerOrHmac,
);
