import { batchGamesByIdsContract, gamesByIds } from '../../lib/games/index.js';
import { route } from '../../lib/http/route.js';

export const handler = route(batchGamesByIdsContract, async ({ body }) => ({
  data: await gamesByIds(body.ids),
}));
