import { bearerOrHmac } from '../../lib/auth/index.js';
import { listMyGames, listMyGamesContract } from '../../lib/games/index.js';
import { route } from '../../lib/http/route.js';

export const handler = route(
  listMyGamesContract,
  async ({ auth, query }) => listMyGames(auth.userId, query),
  bearerOrHmac,
);
