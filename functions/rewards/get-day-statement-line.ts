import { route } from '../../lib/http/route.js';
import { dayRunLine, getDayStatementLineContract } from '../../lib/rewards/index.js';

export const handler = route(getDayStatementLineContract, async ({ params }) => ({
  data: await dayRunLine(params.gameId, params.day, params.arcId),
}));
