import { bearerOrHmac } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { cancelTournament, cancelTournamentContract } from '../../lib/tournaments/index.js';

export const handler = route(
  cancelTournamentContract,
  async ({ auth, params }) => ({ data: await cancelTournament(auth, params.gameId, params.tournamentId) }),
  bearerOrHmac,
);
