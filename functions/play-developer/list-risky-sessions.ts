import { hmacOnly } from '../../lib/auth/authenticators.js';
import { route } from '../../lib/http/route.js';
import { listRiskySessionsContract } from '../../lib/play/contracts.js';
import { riskySessions } from '../../lib/play/queries.js';

export const handler = route(
  listRiskySessionsContract,
  async ({ auth, params, query }) => riskySessions(auth, params.gameId, query),
  hmacOnly,
);
