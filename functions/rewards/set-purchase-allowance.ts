import { bearerOnly } from '../../lib/auth/index.js';
import { now } from '../../lib/core/time.js';
import { route } from '../../lib/http/route.js';
import {
  type AllowanceDeps,
  setPurchaseAllowance,
  setPurchaseAllowanceContract,
} from '../../lib/rewards/index.js';

export const sideEffects: AllowanceDeps = { now };

export const handler = route(
  setPurchaseAllowanceContract,
  async ({ auth, params, body }) => ({
    data: await setPurchaseAllowance(auth, params.gameId, body, sideEffects),
  }),
  bearerOnly,
);
