import { hmacOnly } from '../../lib/auth/authenticators.js';
import { createGameContract, LARGE_IMAGE_HINT } from '../../lib/games/contracts.js';
import { gamesDeps } from '../../lib/games/deps.js';
import { createGame } from '../../lib/games/service.js';
import { multipartParser } from '../../lib/http/multipart.js';
import { route } from '../../lib/http/route.js';

const deps = gamesDeps();

export const handler = route(
  createGameContract,
  async ({ auth, body }) => ({ data: await createGame(auth, body, deps) }),
  hmacOnly,
  { multipart: multipartParser(LARGE_IMAGE_HINT) },
);
