import * as z from 'zod/mini';
import { safeFetch } from '../adapters/safe-fetch.js';
import { defineConfig } from '../core/config.js';
import type { OwnershipDeps } from './ownership.js';

const config = defineConfig(() =>
  z.object({ SAFE_FETCH_ALLOW_LOOPBACK: z._default(z.enum(['true', 'false']), 'false') }),
);

/** Production wiring of the ownership claim. Loopback fetches are allowed only when configured (local stack). */
export const ownershipDeps = (): OwnershipDeps => {
  const { SAFE_FETCH_ALLOW_LOOPBACK } = config();
  return {
    fetchPage: (url) =>
      safeFetch(url, {
        allowLoopback: SAFE_FETCH_ALLOW_LOOPBACK === 'true',
        accept: 'text/html,application/xhtml+xml',
      }),
  };
};
