import { bearerOrHmac } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { listAttempts, listWebhookAttemptsContract } from '../../lib/webhooks/index.js';

export const handler = route(
  listWebhookAttemptsContract,
  ({ auth, params, query }) => listAttempts(auth, params.gameId, params.endpointId, query),
  bearerOrHmac,
);
