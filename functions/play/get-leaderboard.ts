import { playerOrGame } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { getLeaderboardContract, playerLeaderboard } from '../../lib/play/index.js';

export const handler = route(
  getLeaderboardContract,
  async ({ auth, params, query }) => ({ data: await playerLeaderboard(auth, params.gameId, query) }),
  playerOrGame,
);
