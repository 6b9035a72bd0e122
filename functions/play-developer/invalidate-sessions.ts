import { hmacOnly } from '../../lib/auth/authenticators.js';
import { route } from '../../lib/http/route.js';
import { invalidateSessionsContract } from '../../lib/play/contracts.js';
import { invalidateSessions } from '../../lib/play/invalidate.js';

export const handler = route(
  invalidateSessionsContract,
  async ({ auth, body }) => ({ data: await invalidateSessions(auth, body) }),
  hmacOnly,
);
