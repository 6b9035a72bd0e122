import { bearerOrHmac } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { devPoints, getDevPointsContract } from '../../lib/play/index.js';

export const handler = route(
  getDevPointsContract,
  async ({ auth, query }) => ({ data: await devPoints(auth, query) }),
  bearerOrHmac,
);
