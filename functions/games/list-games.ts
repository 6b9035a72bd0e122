import { listGames, listGamesContract } from '../../lib/games/index.js';
import { route } from '../../lib/http/route.js';

export const handler = route(listGamesContract, async ({ query }) => listGames(query));
