import { batchGamesByIdsContract } from '../../lib/games/contracts.js';
import { gamesByIds } from '../../lib/games/queries.js';
import { route } from '../../lib/http/route.js';

export const handler = route(batchGamesByIdsContract, async ({ body }) => ({
  data: await gamesByIds(body.ids),
}));
