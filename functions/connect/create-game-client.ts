import { bearerOrHmac } from '../../lib/auth/index.js';
import { createClient, createOAuthClientContract } from '../../lib/connect/index.js';
import { now } from '../../lib/core/time.js';
import { route } from '../../lib/http/route.js';

export const handler = route(
  createOAuthClientContract,
  async ({ auth, params, body }) => ({ data: await createClient(auth, params.gameId, body, now()) }),
  bearerOrHmac,
);
