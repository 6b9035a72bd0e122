import { imageUploads } from '../../lib/adapters/storage.js';
import { hmacOnly } from '../../lib/auth/authenticators.js';
import { createGameImageUploadUrlContract } from '../../lib/games/contracts.js';
import { createImageUpload } from '../../lib/games/uploads.js';
import { route } from '../../lib/http/route.js';

const deps = { uploads: imageUploads };

export const handler = route(
  createGameImageUploadUrlContract,
  async ({ auth, body }) => ({ data: await createImageUpload(auth, body, deps) }),
  hmacOnly,
);
