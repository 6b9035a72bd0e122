import { route } from '../../lib/http/route.js';
import { dayRun, getDayStatementContract } from '../../lib/rewards/index.js';

export const handler = route(getDayStatementContract, async ({ params }) => ({
  data: await dayRun(params.gameId, params.day),
}));
