import { bearerOrHmac } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { listRiskySessionsContract, riskySessions } from '../../lib/play/index.js';

export const handler = route(
  listRiskySessionsContract,
  async ({ auth, params, query }) => riskySessions(auth, params.gameId, query),
  bearerOrHmac,
);
