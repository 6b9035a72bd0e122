import { bearerAuthenticator } from '../../lib/auth/bearer.js';
import { sessionAuthenticator } from '../../lib/auth/player.js';
import { HttpResponse } from '../../lib/http/response.js';
import { route } from '../../lib/http/route.js';
import { purchaseMultiplierContract } from '../../lib/rewards/contracts.js';
import { rewardsDeps } from '../../lib/rewards/deps.js';
import { purchaseMultiplier } from '../../lib/rewards/service.js';

export const handler = route(
  purchaseMultiplierContract,
  async ({ auth, body }) => {
    const purchase = await purchaseMultiplier(auth, body, rewardsDeps());
    // Not confirmed within the request: 202, and a retry with the same idempotencyKey gives the outcome.
    return purchase.status === 'pending' ? new HttpResponse(202, { data: purchase }) : { data: purchase };
  },
  { bearer: bearerAuthenticator, session: sessionAuthenticator },
);
