// Business metrics as CloudWatch embedded metric format (EMF): JSON lines on stdout that CloudWatch turns into
// metrics, no API call and no latency; locally they appear in the function logs (docs/operations.md lists them
// and the alarms built on them). Handlers flush them at the end of each invocation (lib/http/handler.ts,
// ./observed.ts).
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { logger } from './logger.js';

export { MetricUnit };

/** Every metric lands in the `Arcadia` namespace with the `service` dimension (POWERTOOLS_* settings). */
export const metrics = new Metrics({
  namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? 'Arcadia',
  serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'arcadia',
  // Most requests emit no business metric: the library's "nothing to publish" warning would be noise on each.
  logger: {
    debug: (...args: unknown[]) => logger.debug(String(args[0])),
    info: (...args: unknown[]) => logger.info(String(args[0])),
    error: (...args: unknown[]) => logger.error(String(args[0])),
    warn: (...args: unknown[]) => {
      const message = String(args[0]);
      if (message.startsWith('No application metrics to publish')) logger.debug(message);
      else logger.warn(message);
    },
  },
});

type Unit = (typeof MetricUnit)[keyof typeof MetricUnit];

/** Adds `value` to the invocation's `name` (flushed when the invocation ends); zero adds nothing. */
export const countMetric = (name: string, value = 1, unit: Unit = MetricUnit.Count): void => {
  if (value !== 0) metrics.addMetric(name, unit, value);
};

/**
 * A metric split by a dimension of few values (a refusal reason, an outcome): its own EMF record, written at
 * once, so it carries only its own dimensions.
 */
export const countMetricBy = (
  name: string,
  dimensions: Record<string, string>,
  value = 1,
  unit: Unit = MetricUnit.Count,
): void => {
  if (value === 0) return;
  const single = metrics.singleMetric();
  for (const [key, dimension] of Object.entries(dimensions)) single.addDimension(key, dimension);
  single.addMetric(name, unit, value);
};
