import { bearerOnly } from '../../lib/auth/index.js';
import { chainReaderFromConfig } from '../../lib/chain/index.js';
import { now } from '../../lib/core/time.js';
import { route } from '../../lib/http/route.js';
import { type CompleteDeps, completeLaunch, completeLaunchContract } from '../../lib/launcher/index.js';

export const sideEffects: CompleteDeps = { chain: chainReaderFromConfig(), now };

export const handler = route(
  completeLaunchContract,
  async ({ auth, body }) => ({ data: await completeLaunch(body.gtokenAddress, auth.userId, sideEffects) }),
  bearerOnly,
);
