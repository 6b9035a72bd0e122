import { route } from '../../lib/http/route.js';
import { getPrizeStatementLineContract, prizeRunLine } from '../../lib/rewards/index.js';

export const handler = route(getPrizeStatementLineContract, async ({ params }) => ({
  data: await prizeRunLine(
    params.gameId,
    { tournamentId: params.tournamentId, periodId: params.periodId },
    params.arcId,
  ),
}));
