import { route } from '../../lib/http/route.js';
import { getMultiplierCostContract } from '../../lib/rewards/contracts.js';
import { quoteDeps } from '../../lib/rewards/quote-deps.js';
import { multiplierCost } from '../../lib/rewards/quotes.js';

export const handler = route(getMultiplierCostContract, async ({ query }) => ({
  data: await multiplierCost(query, quoteDeps()),
}));
