import { bearerOrHmac } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { getMyStats, getMyStatsContract } from '../../lib/user/index.js';

export const handler = route(
  getMyStatsContract,
  async ({ auth }) => ({ data: await getMyStats(auth) }),
  bearerOrHmac,
);
