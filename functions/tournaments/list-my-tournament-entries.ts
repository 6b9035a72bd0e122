import { playerOrGame } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { listMyTournamentEntriesContract, myEntries } from '../../lib/tournaments/index.js';

export const handler = route(
  listMyTournamentEntriesContract,
  async ({ auth, params, query }) => myEntries(auth, params.gameId, query),
  playerOrGame,
);
