import { listGamesContract } from '../../lib/games/contracts.js';
import { listGames } from '../../lib/games/queries.js';
import { route } from '../../lib/http/route.js';

export const handler = route(listGamesContract, async ({ query }) => listGames(query));
