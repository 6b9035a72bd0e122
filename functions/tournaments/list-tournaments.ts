import { studioOrGame } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { listGameTournaments, listTournamentsContract } from '../../lib/tournaments/index.js';

export const handler = route(
  listTournamentsContract,
  async ({ auth, params, query }) => listGameTournaments(auth, params.gameId, query),
  studioOrGame,
);
