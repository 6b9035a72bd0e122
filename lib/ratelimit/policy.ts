import { settings } from '../core/config.js';
import type { RateLimitSpec } from '../core/contract.js';

/**
 * The default budget of every route (SPEC §8): 60 requests a minute per client IP for public routes, and a
 * higher 600 a minute per authenticated user for routes that require authentication. Both are configuration.
 */
export const defaultBudget = (authenticated: boolean): RateLimitSpec & { name: string } => {
  const config = settings();
  return authenticated
    ? { name: 'user', key: 'user', limit: config.RATE_LIMIT_USER_PER_MINUTE, windowSeconds: 60 }
    : { name: 'ip', key: 'ip', limit: config.RATE_LIMIT_IP_PER_MINUTE, windowSeconds: 60 };
};
