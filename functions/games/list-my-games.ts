import { hmacOnly } from '../../lib/auth/authenticators.js';
import { listMyGamesContract } from '../../lib/games/contracts.js';
import { listMyGames } from '../../lib/games/queries.js';
import { route } from '../../lib/http/route.js';

export const handler = route(
  listMyGamesContract,
  async ({ auth, query }) => listMyGames(auth.userId, query),
  hmacOnly,
);
