// What every function that is not an HTTP route runs inside (schedules, queue consumers, state machine tasks):
// the logger's Lambda context and the invocation's metrics flushed at its end (X-Ray traces every invocation
// through Lambda's active tracing). HTTP routes get the same from lib/http/handler.ts.
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { coldStartLoads } from './cold-start.js';
import { withDeadline } from './deadline.js';
import { logger } from './logger.js';
import { metrics } from './metrics.js';

/** Lambda always passes a context; a script or test that calls a handler in-process may not. */
const inProcess = { functionName: 'in-process', awsRequestId: 'in-process' } as Context;

export const observed = <E, R>(
  handler: (event: E, context: Context) => Promise<R>,
): ((event: E, context?: Context) => Promise<R>) => {
  // What the bundled modules read once per container (the secrets key) is there before the handler's body runs.
  // Outbound calls take their timeouts and retry waits from the time Lambda has left (lib/core/deadline.ts).
  const wrapped = middy((event: E, context: Context) =>
    withDeadline(context, async () => {
      await coldStartLoads();
      return handler(event, context);
    }),
  )
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { captureColdStartMetric: true }));
  return (event, context) => wrapped(event, context ?? inProcess);
};
