import { bearerOnly } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { revokePurchaseAllowance, revokePurchaseAllowanceContract } from '../../lib/rewards/index.js';

export const handler = route(
  revokePurchaseAllowanceContract,
  async ({ auth, params }) => ({ data: await revokePurchaseAllowance(auth, params.gameId) }),
  bearerOnly,
);
