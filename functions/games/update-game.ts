import { hmacOnly } from '../../lib/auth/authenticators.js';
import { LARGE_IMAGE_HINT, updateGameContract } from '../../lib/games/contracts.js';
import { gamesDeps } from '../../lib/games/deps.js';
import { updateGame } from '../../lib/games/service.js';
import { multipartParser } from '../../lib/http/multipart.js';
import { route } from '../../lib/http/route.js';

const deps = gamesDeps();

export const handler = route(
  updateGameContract,
  async ({ auth, params, body }) => ({ data: await updateGame(auth, params.gameId, body, deps) }),
  hmacOnly,
  { multipart: multipartParser(LARGE_IMAGE_HINT) },
);
