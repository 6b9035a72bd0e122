import { bearerOnly } from '../../lib/auth/index.js';
import { approveConnect, approveConnectContract } from '../../lib/connect/index.js';
import { now } from '../../lib/core/time.js';
import { route } from '../../lib/http/route.js';

export const handler = route(
  approveConnectContract,
  async ({ auth, body }) => ({ data: await approveConnect(auth, body, now()) }),
  bearerOnly,
);
