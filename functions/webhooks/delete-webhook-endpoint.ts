import { bearerOrHmac } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { deleteEndpoint, deleteWebhookEndpointContract } from '../../lib/webhooks/index.js';

export const handler = route(
  deleteWebhookEndpointContract,
  async ({ auth, params }) => ({ data: await deleteEndpoint(auth, params.gameId, params.endpointId) }),
  bearerOrHmac,
);
