import { imageUploads } from '../../lib/adapters/storage.js';
import { hmacOnly } from '../../lib/auth/index.js';
import {
  createGameImageUploadUrlContract,
  createImageUpload,
  type ImageUploads,
} from '../../lib/games/index.js';
import { route } from '../../lib/http/route.js';

export const sideEffects: { uploads: ImageUploads } = { uploads: imageUploads };

export const handler = route(
  createGameImageUploadUrlContract,
  async ({ auth, body }) => ({ data: await createImageUpload(auth, body, sideEffects) }),
  hmacOnly,
);
