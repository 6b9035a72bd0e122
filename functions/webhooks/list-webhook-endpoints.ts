import { bearerOrHmac } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { listEndpoints, listWebhookEndpointsContract } from '../../lib/webhooks/index.js';

export const handler = route(
  listWebhookEndpointsContract,
  async ({ auth, params }) => ({ data: await listEndpoints(auth, params.gameId) }),
  bearerOrHmac,
);
