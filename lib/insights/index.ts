// Public surface of the insights domain: a game's figures day by day and its retention cohorts, kept by counters
// that the changes' own transactions ADD to (counters.ts), read by GET /games/insights/{gameId}.
import type { Contract } from '../core/contract.js';
import { getGameInsightsContract } from './contracts.js';

export {
  DEFAULT_RANGE_DAYS,
  GameInsights,
  getGameInsightsContract,
  InsightsDay,
  MAX_RANGE_DAYS,
  RetentionCohort,
} from './contracts.js';
export {
  activityAdds,
  insightsAddsOf,
  insightsInCopy,
  insightsWrite,
  sumAdds,
} from './counters.js';
export type { InsightsAdds } from './keys.js';
export { gameInsights, type InsightsDeps, type PoolDayFigures, type PoolDays } from './service.js';

/** The domain's operations, in the order of the OpenAPI document. */
export const contracts: readonly Contract[] = [getGameInsightsContract];
