import { bearerOrHmac } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { updateEndpoint, updateWebhookEndpointContract, webhookDeps } from '../../lib/webhooks/index.js';

export const sideEffects = webhookDeps();

export const handler = route(
  updateWebhookEndpointContract,
  async ({ auth, params, body }) => ({
    data: await updateEndpoint(auth, params.gameId, params.endpointId, body, sideEffects),
  }),
  bearerOrHmac,
);
