import { hmacOnly } from '../../lib/auth/authenticators.js';
import { claimOwnershipContract } from '../../lib/games/contracts.js';
import { claimOwnership } from '../../lib/games/ownership.js';
import { ownershipDeps } from '../../lib/games/ownership-deps.js';
import { route } from '../../lib/http/route.js';

const deps = ownershipDeps();

export const handler = route(
  claimOwnershipContract,
  async ({ auth, params }) => ({ data: await claimOwnership(auth, params.gameId, deps) }),
  hmacOnly,
);
