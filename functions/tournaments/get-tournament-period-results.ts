import { studioOrGame } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { getTournamentPeriodResultsContract, periodResults } from '../../lib/tournaments/index.js';

export const handler = route(
  getTournamentPeriodResultsContract,
  async ({ auth, params }) => ({ data: await periodResults(auth, params) }),
  studioOrGame,
);
