import { bearerAuthenticator } from '../../lib/auth/bearer.js';
import { sessionAuthenticator } from '../../lib/auth/player.js';
import { route } from '../../lib/http/route.js';
import { getMultiplierCostForPlacementContract } from '../../lib/rewards/contracts.js';
import { quoteDeps } from '../../lib/rewards/quote-deps.js';
import { costForPlacement } from '../../lib/rewards/quotes.js';

export const handler = route(
  getMultiplierCostForPlacementContract,
  async ({ auth, query }) => ({ data: await costForPlacement(auth, query, quoteDeps()) }),
  { bearer: bearerAuthenticator, session: sessionAuthenticator },
);
