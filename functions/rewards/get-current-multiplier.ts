import { playerOrGame } from '../../lib/auth/index.js';
import { now } from '../../lib/core/time.js';
import { route } from '../../lib/http/route.js';
import { currentMultiplier, getCurrentMultiplierContract } from '../../lib/rewards/index.js';

export const handler = route(
  getCurrentMultiplierContract,
  async ({ auth, query }) => ({ data: await currentMultiplier(auth, query.gameId, { now }) }),
  playerOrGame,
);
