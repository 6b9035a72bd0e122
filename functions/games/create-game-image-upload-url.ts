import { imageUploadUrls } from '../../lib/adapters/image-upload-urls.js';
import { bearerOrHmac } from '../../lib/auth/index.js';
import {
  createGameImageUploadUrlContract,
  createImageUpload,
  type UploadUrls,
} from '../../lib/games/index.js';
import { route } from '../../lib/http/route.js';

export const sideEffects: { uploads: UploadUrls } = { uploads: imageUploadUrls };

export const handler = route(
  createGameImageUploadUrlContract,
  async ({ auth, body }) => ({ data: await createImageUpload(auth, body, sideEffects) }),
  bearerOrHmac,
);
