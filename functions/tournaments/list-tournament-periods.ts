import { studioOrGame } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { listPeriods, listTournamentPeriodsContract } from '../../lib/tournaments/index.js';

export const handler = route(
  listTournamentPeriodsContract,
  async ({ auth, params, query }) => listPeriods(auth, params.gameId, params.tournamentId, query),
  studioOrGame,
);
