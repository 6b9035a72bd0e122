import { hmacOnly } from '../../lib/auth/authenticators.js';
import { route } from '../../lib/http/route.js';
import { getDevPointsContract } from '../../lib/play/contracts.js';
import { devPoints } from '../../lib/play/queries.js';

export const handler = route(
  getDevPointsContract,
  async ({ auth, query }) => ({ data: await devPoints(auth, query) }),
  hmacOnly,
);
