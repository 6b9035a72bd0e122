import { hmacOnly } from '../../lib/auth/authenticators.js';
import { toggleVisibility } from '../../lib/games/changes.js';
import { toggleVisibilityContract } from '../../lib/games/contracts.js';
import { route } from '../../lib/http/route.js';

export const handler = route(
  toggleVisibilityContract,
  async ({ auth, params }) => ({ data: await toggleVisibility(auth, params.id) }),
  hmacOnly,
);
