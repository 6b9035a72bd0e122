// X-Ray tracing through Powertools Tracer: each invocation is a segment, with its AWS SDK and fetch calls as
// subsegments. Off where there is no X-Ray (POWERTOOLS_TRACE_ENABLED=false: the local stack).
import { Tracer } from '@aws-lambda-powertools/tracer';

export const tracer = new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'arcadia' });
