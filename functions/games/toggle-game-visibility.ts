import { bearerOrHmac } from '../../lib/auth/index.js';
import { toggleVisibility, toggleVisibilityContract } from '../../lib/games/index.js';
import { route } from '../../lib/http/route.js';

export const handler = route(
  toggleVisibilityContract,
  async ({ auth, params }) => ({ data: await toggleVisibility(auth, params.id) }),
  bearerOrHmac,
);
