import { route } from '../../lib/http/route.js';
import { listStatements, listStatementsContract } from '../../lib/rewards/index.js';

export const handler = route(listStatementsContract, async ({ params, query }) =>
  listStatements(params.gameId, query),
);
