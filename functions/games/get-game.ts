import { getGameContract, requireGame, toView } from '../../lib/games/index.js';
import { route } from '../../lib/http/route.js';

export const handler = route(getGameContract, async ({ params, query }) => ({
  data: toView(await requireGame(params.id), query.include_tokens),
}));
