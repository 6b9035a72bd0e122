import { playerOrGame } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { getMyRankContract, myRank } from '../../lib/play/index.js';

export const handler = route(
  getMyRankContract,
  async ({ auth, params, query }) => ({ data: await myRank(auth, params.gameId, query) }),
  playerOrGame,
);
