import { batchGamesByTokenIdsContract } from '../../lib/games/contracts.js';
import { gamesByCoinAddresses } from '../../lib/games/queries.js';
import { route } from '../../lib/http/route.js';

export const handler = route(batchGamesByTokenIdsContract, async ({ body }) => ({
  data: await gamesByCoinAddresses(body.tokenIds),
}));
