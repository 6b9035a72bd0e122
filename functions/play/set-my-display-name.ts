import { playerOrGame } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { setMyDisplayNameContract, setMyName } from '../../lib/play/index.js';

export const handler = route(
  setMyDisplayNameContract,
  async ({ auth, params, body }) => ({ data: await setMyName(auth, params.gameId, body) }),
  playerOrGame,
);
