import { getGamesByTokenContract } from '../../lib/games/contracts.js';
import { gamesByToken } from '../../lib/games/queries.js';
import { route } from '../../lib/http/route.js';

export const handler = route(getGamesByTokenContract, async ({ params }) => ({
  data: await gamesByToken(params.tokenId),
}));
