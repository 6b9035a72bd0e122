import { bearerOrHmac } from '../../lib/auth/authenticators.js';
import { route } from '../../lib/http/route.js';
import { getMyStatsContract } from '../../lib/user/contracts.js';
import { showStats } from '../../lib/user/profile.js';

export const handler = route(
  getMyStatsContract,
  async ({ auth }) => ({ data: await showStats(auth) }),
  bearerOrHmac,
);
