import type { RawRequest } from '../core/auth.js';
import { settings } from '../core/config.js';
import type { RateLimitSpec } from '../core/contract.js';

/**
 * The default budget of every route (docs/decisions.md, "Rate limits"): 60 requests a minute per client IP for public
 * routes, and a higher 600 a minute per authenticated user for routes that require authentication. Both are
 * configuration.
 */
export const defaultBudget = (authenticated: boolean): RateLimitSpec & { name: string } => {
  const config = settings();
  return authenticated
    ? { name: 'user', key: 'user', limit: config.RATE_LIMIT_USER_PER_MINUTE, windowSeconds: 60 }
    : { name: 'ip', key: 'ip', limit: config.RATE_LIMIT_IP_PER_MINUTE, windowSeconds: 60 };
};

/** The API key an HMAC Authorization header names, if any (lib/auth/hmac.ts parses the whole header). */
const PRESENTED_API_KEY = /^HMAC-SHA256 .*\bapiKey=([0-9a-fA-F-]{36})\b/i;

/**
 * What a request that fails authentication spends: a budget of failures per client IP and, when the request
 * names an API key, one per API key (so guessing spread over many addresses is limited too). Both have the size
 * of the anonymous per-IP limit, since a failed request is an anonymous one; they are apart from the default
 * budgets, so failures never eat into what a client's valid requests may spend.
 */
export const failedAuthBudgets = (
  request: Pick<RawRequest, 'sourceIp' | 'headers'>,
): Array<{ spec: RateLimitSpec & { name: string }; key: string }> => {
  const limit = settings().RATE_LIMIT_IP_PER_MINUTE;
  const spec = { name: 'auth-failures', limit, windowSeconds: 60 };
  const apiKey = PRESENTED_API_KEY.exec(request.headers.authorization?.trim() ?? '')?.[1]?.toLowerCase();
  return [
    { spec: { ...spec, key: 'ip' }, key: `ip:${request.sourceIp}` },
    ...(apiKey ? [{ spec: { ...spec, key: 'apiKey' as const }, key: `key:${apiKey}` }] : []),
  ];
};
