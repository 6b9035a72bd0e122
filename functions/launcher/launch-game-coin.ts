import { bearerOnly } from '../../lib/auth/authenticators.js';
import { route } from '../../lib/http/route.js';
import { launchGameCoinContract } from '../../lib/launcher/contracts.js';
import { launchDeps } from '../../lib/launcher/deps.js';
import { launchGameCoin } from '../../lib/launcher/service.js';

export const handler = route(
  launchGameCoinContract,
  async ({ auth, body }) => ({ data: await launchGameCoin(auth, body, launchDeps()) }),
  bearerOnly,
);
