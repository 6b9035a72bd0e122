import { studioOrGame } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { getTournamentContract, readTournament } from '../../lib/tournaments/index.js';

export const handler = route(
  getTournamentContract,
  async ({ auth, params }) => ({ data: await readTournament(auth, params.gameId, params.tournamentId) }),
  studioOrGame,
);
