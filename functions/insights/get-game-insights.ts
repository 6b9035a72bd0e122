import { bearerOrHmac } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { gameInsights, getGameInsightsContract, type InsightsDeps } from '../../lib/insights/index.js';
import { poolDaysBetween } from '../../lib/rewards/index.js';

export const sideEffects: InsightsDeps = { poolDays: poolDaysBetween };

export const handler = route(
  getGameInsightsContract,
  async ({ auth, params, query }) => ({
    data: await gameInsights(auth, params.gameId, query, sideEffects),
  }),
  bearerOrHmac,
);
