import { bearerOrHmac } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { createTournament, createTournamentContract } from '../../lib/tournaments/index.js';

export const handler = route(
  createTournamentContract,
  async ({ auth, params, body }) => ({ data: await createTournament(auth, params.gameId, body) }),
  bearerOrHmac,
);
