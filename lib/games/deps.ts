import * as z from 'zod/mini';
import { safeFetch } from '../adapters/safe-fetch.js';
import { putImage } from '../adapters/storage.js';
import { defineConfig } from '../config.js';
import { configuredDirectory } from '../identity/directory.js';
import type { GamesDeps } from './service.js';

const config = defineConfig(() =>
  z.object({ SAFE_FETCH_ALLOW_LOOPBACK: z._default(z.enum(['true', 'false']), 'false') }),
);

/** Production wiring of the games area. Loopback fetches are allowed only when configured (local stack). */
export const gamesDeps = (): GamesDeps => {
  const { SAFE_FETCH_ALLOW_LOOPBACK } = config();
  return {
    directory: configuredDirectory(),
    storeImage: putImage,
    fetchPage: (url) =>
      safeFetch(url, {
        allowLoopback: SAFE_FETCH_ALLOW_LOOPBACK === 'true',
        accept: 'text/html,application/xhtml+xml',
      }),
  };
};
