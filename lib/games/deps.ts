import { imageUploads, putImage } from '../adapters/storage.js';
import { configuredDirectory } from '../identity/directory.js';
import type { GamesDeps } from './service.js';

/** Production wiring of game registration and updates (identity directory for splits, S3 for images). */
export const gamesDeps = (): GamesDeps => ({
  directory: configuredDirectory(),
  storeImage: putImage,
  uploads: imageUploads,
});
