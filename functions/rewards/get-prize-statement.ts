import { route } from '../../lib/http/route.js';
import { getPrizeStatementContract, prizeRun } from '../../lib/rewards/index.js';

export const handler = route(getPrizeStatementContract, async ({ params }) => ({
  data: await prizeRun(params.gameId, { tournamentId: params.tournamentId, periodId: params.periodId }),
}));
