import { hmacOnly } from '../../lib/auth/authenticators.js';
import { toggleVisibilityContract } from '../../lib/games/contracts.js';
import { gamesDeps } from '../../lib/games/deps.js';
import { toggleVisibility } from '../../lib/games/service.js';
import { route } from '../../lib/http/route.js';

const deps = gamesDeps();

export const handler = route(
  toggleVisibilityContract,
  async ({ auth, params }) => ({ data: await toggleVisibility(auth, params.id, deps) }),
  hmacOnly,
);
