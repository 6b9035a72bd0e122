import { studioOrGame } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { getTournamentBoardContract, tournamentBoard } from '../../lib/tournaments/index.js';

export const handler = route(
  getTournamentBoardContract,
  async ({ auth, params, query }) => ({ data: await tournamentBoard(auth, params, query) }),
  studioOrGame,
);
