import { bearerOnly } from '../../lib/auth/authenticators.js';
import { route } from '../../lib/http/route.js';
import { completeLaunch } from '../../lib/launcher/complete.js';
import { completeLaunchContract } from '../../lib/launcher/contracts.js';
import { completeDeps } from '../../lib/launcher/deps.js';

export const handler = route(
  completeLaunchContract,
  async ({ body }) => ({ data: await completeLaunch(body.gtokenAddress, completeDeps()) }),
  bearerOnly,
);
