import { bearerOrHmac } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { rotateSecret, rotateWebhookSecretContract } from '../../lib/webhooks/index.js';

export const handler = route(
  rotateWebhookSecretContract,
  async ({ auth, params, query }) => ({
    data: await rotateSecret(
      auth,
      params.gameId,
      params.endpointId,
      { expireOldNow: query.expireOldNow },
      {},
    ),
  }),
  bearerOrHmac,
);
