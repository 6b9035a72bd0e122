import { bearerOrHmac } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { setPlayerDisplayNameContract, setPlayerName } from '../../lib/play/index.js';

export const handler = route(
  setPlayerDisplayNameContract,
  async ({ auth, params, body }) => ({ data: await setPlayerName(auth, params.gameId, body) }),
  bearerOrHmac,
);
