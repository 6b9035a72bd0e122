import type { Contract, ResponseOf } from '../core/contract.js';
import { makeRateLimiter } from '../ratelimit/limiter.js';
import { defaultBudget, failedAuthBudgets } from '../ratelimit/policy.js';
import { type HttpDeps, httpHandler, type LambdaHttpHandler, type RequestOf } from './handler.js';
import type { HttpResponse } from './response.js';

/**
 * The production wiring of a route: the contract's use case behind the shared middy stack, with the
 * DynamoDB-backed rate limiter (default, route and failed-authentication budgets) and the authenticators the
 * contract names.
 */
export const route = <C extends Contract>(
  contract: C,
  useCase: (request: RequestOf<C>) => Promise<ResponseOf<C> | HttpResponse<ResponseOf<C>>>,
  authenticators: HttpDeps['authenticators'] = {},
  extra: Pick<HttpDeps, 'multipart'> = {},
): LambdaHttpHandler =>
  httpHandler(contract, useCase, {
    ...extra,
    authenticators,
    rateLimiter: makeRateLimiter(),
    defaultBudget,
    failedAuthBudgets,
  });
