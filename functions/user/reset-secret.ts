import { bearerOrHmac } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { resetSecret, resetSecretContract } from '../../lib/user/index.js';

export const handler = route(
  resetSecretContract,
  async ({ auth }) => ({ data: await resetSecret(auth) }),
  bearerOrHmac,
);
