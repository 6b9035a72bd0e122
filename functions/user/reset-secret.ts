import { bearerOrHmac } from '../../lib/auth/authenticators.js';
import { route } from '../../lib/http/route.js';
import { resetSecretContract } from '../../lib/user/contracts.js';
import { resetSecret } from '../../lib/users/service.js';

export const handler = route(
  resetSecretContract,
  async ({ auth }) => ({ data: await resetSecret(auth) }),
  bearerOrHmac,
);
