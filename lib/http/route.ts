import { settings } from '../core/config.js';
import type { Contract, ResponseOf } from '../core/contract.js';
import { defaultBudget, failedAuthBudgets, makeRateLimiter } from '../ratelimit/index.js';
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
): LambdaHttpHandler => {
  // Route handlers are built at module load: parsing the settings here fails a misconfigured container's
  // cold start, naming what is missing, instead of its first request.
  settings();
  return httpHandler(contract, useCase, {
    ...extra,
    authenticators,
    rateLimiter: makeRateLimiter(),
    defaultBudget,
    failedAuthBudgets,
  });
};
