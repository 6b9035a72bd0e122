import { bearerOrHmac } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { createEndpoint, createWebhookEndpointContract, webhookDeps } from '../../lib/webhooks/index.js';

export const sideEffects = webhookDeps();

export const handler = route(
  createWebhookEndpointContract,
  async ({ auth, params, body }) => ({ data: await createEndpoint(auth, params.gameId, body, sideEffects) }),
  bearerOrHmac,
);
