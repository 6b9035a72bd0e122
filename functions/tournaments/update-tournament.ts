import { bearerOrHmac } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { updateTournament, updateTournamentContract } from '../../lib/tournaments/index.js';

export const handler = route(
  updateTournamentContract,
  async ({ auth, params, body }) => ({
    data: await updateTournament(auth, params.gameId, params.tournamentId, body),
  }),
  bearerOrHmac,
);
