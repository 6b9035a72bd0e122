// Public surface of the ratelimit domain: code outside lib/ratelimit imports it from here only.
export { makeRateLimiter } from './limiter.js';
export { useOnce } from './once.js';
export { defaultBudget, failedAuthBudgets } from './policy.js';
