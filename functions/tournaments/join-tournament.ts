import { playerOrGame } from '../../lib/auth/index.js';
import { HttpResponse } from '../../lib/http/response.js';
import { route } from '../../lib/http/route.js';
import { joinTournament, joinTournamentContract } from '../../lib/tournaments/index.js';

export const handler = route(
  joinTournamentContract,
  async ({ auth, params }) => {
    const { created, entry } = await joinTournament(auth, params.gameId, params.tournamentId);
    // Joining again answers the same entry with 200.
    return created ? { data: entry } : new HttpResponse(200, { data: entry });
  },
  playerOrGame,
);
