import { bearerAuthenticator } from '../../lib/auth/bearer.js';
import { sessionAuthenticator } from '../../lib/auth/player.js';
import { route } from '../../lib/http/route.js';
import { getCurrentMultiplierContract } from '../../lib/rewards/contracts.js';
import { quoteDeps } from '../../lib/rewards/quote-deps.js';
import { currentMultiplier } from '../../lib/rewards/quotes.js';

export const handler = route(
  getCurrentMultiplierContract,
  async ({ auth, query }) => ({ data: await currentMultiplier(auth, query.gameId, quoteDeps()) }),
  { bearer: bearerAuthenticator, session: sessionAuthenticator },
);
