import { getGameContract } from '../../lib/games/contracts.js';
import { requireGame, toView } from '../../lib/games/read.js';
import { route } from '../../lib/http/route.js';

export const handler = route(getGameContract, async ({ params, query }) => ({
  data: toView(await requireGame(params.id), query.include_tokens),
}));
