import { bearerOrHmac } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { sendTest, sendWebhookTestContract, webhookDeps } from '../../lib/webhooks/index.js';

export const sideEffects = webhookDeps();

export const handler = route(
  sendWebhookTestContract,
  async ({ auth, params }) => ({ data: await sendTest(auth, params.gameId, params.endpointId, sideEffects) }),
  bearerOrHmac,
);
