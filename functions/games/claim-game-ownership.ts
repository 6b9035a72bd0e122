import { htmlPageFetcher } from '../../lib/adapters/safe-fetch.js';
import { bearerOrHmac } from '../../lib/auth/index.js';
import { settings } from '../../lib/core/config.js';
import { claimOwnership, claimOwnershipContract, type OwnershipDeps } from '../../lib/games/index.js';
import { route } from '../../lib/http/route.js';
import { controlChangeWrites } from '../../lib/webhooks/index.js';

// Loopback pages only where configured (the local stack serves test games on 127.0.0.1). A change of control
// disables the previous controller's webhook endpoints.
export const sideEffects: OwnershipDeps = {
  fetchPage: htmlPageFetcher(settings().SAFE_FETCH_ALLOW_LOOPBACK === 'true'),
  controlChange: controlChangeWrites,
};

export const handler = route(
  claimOwnershipContract,
  async ({ auth, params }) => ({ data: await claimOwnership(auth, params.gameId, sideEffects) }),
  bearerOrHmac,
);
