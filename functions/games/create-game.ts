import { imageUploadClaims } from '../../lib/adapters/image-upload-claims.js';
import { checkFetchableUrl } from '../../lib/adapters/safe-fetch.js';
import { putImage } from '../../lib/adapters/storage.js';
import { bearerOrHmac } from '../../lib/auth/index.js';
import { settings } from '../../lib/core/config.js';
import { createGame, createGameContract, type GamesDeps, LARGE_IMAGE_HINT } from '../../lib/games/index.js';
import { multipartParser } from '../../lib/http/multipart.js';
import { route } from '../../lib/http/route.js';
import { configuredDirectory, queueImports } from '../../lib/user/index.js';

export const sideEffects: GamesDeps = {
  directory: configuredDirectory(),
  imports: queueImports,
  storeImage: putImage,
  checkFetchableUrl: (url) =>
    checkFetchableUrl(url, { allowLoopback: settings().SAFE_FETCH_ALLOW_LOOPBACK === 'true' }),
  uploads: imageUploadClaims,
};

export const handler = route(
  createGameContract,
  async ({ auth, body }) => ({ data: await createGame(auth, body, sideEffects) }),
  bearerOrHmac,
  { multipart: multipartParser(LARGE_IMAGE_HINT) },
);
