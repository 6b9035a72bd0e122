import { batchGamesByTokenIdsContract, gamesByCoinMints } from '../../lib/games/index.js';
import { route } from '../../lib/http/route.js';

export const handler = route(batchGamesByTokenIdsContract, async ({ body }) => ({
  data: await gamesByCoinMints(body.tokenIds),
}));
