import { gamesByToken, getGamesByTokenContract } from '../../lib/games/index.js';
import { route } from '../../lib/http/route.js';

export const handler = route(getGamesByTokenContract, async ({ params }) => ({
  data: await gamesByToken(params.tokenId),
}));
