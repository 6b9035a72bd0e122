import { bearerOrHmac } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { redeliver, redeliverWebhookEventContract, webhookDeps } from '../../lib/webhooks/index.js';

export const sideEffects = webhookDeps();

export const handler = route(
  redeliverWebhookEventContract,
  async ({ auth, params }) => ({ data: await redeliver(auth, params, sideEffects) }),
  bearerOrHmac,
);
