import { hmacOnly } from '../../lib/auth/authenticators.js';
import { claimOwnershipContract } from '../../lib/games/contracts.js';
import { gamesDeps } from '../../lib/games/deps.js';
import { claimOwnership } from '../../lib/games/service.js';
import { route } from '../../lib/http/route.js';

const deps = gamesDeps();

export const handler = route(
  claimOwnershipContract,
  async ({ auth, params }) => ({ data: await claimOwnership(auth, params.gameId, deps) }),
  hmacOnly,
);
