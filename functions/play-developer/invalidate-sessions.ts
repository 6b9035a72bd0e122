import { bearerOrHmac } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { invalidateSessions, invalidateSessionsContract } from '../../lib/play/index.js';

export const handler = route(
  invalidateSessionsContract,
  async ({ auth, body }) => ({ data: await invalidateSessions(auth, body) }),
  bearerOrHmac,
);
