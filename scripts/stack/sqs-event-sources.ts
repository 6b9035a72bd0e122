// The `sqs` events of serverless.yml's functions, run locally: one poller (./sqs-poller.ts) per event, invoking
// the function through serverless offline's Lambda invoke API, so `npm run dev` consumes its queues (and
// dead-letters poison messages) the way the deployed event source mappings do.
import { SQSClient } from '@aws-sdk/client-sqs';
import type { ServerlessConfig } from './config.js';
import { functionLogicalId, resolveIntrinsics } from './intrinsics.js';
import type { ProvisionedQueue } from './provision-sqs.js';
import type { ProvisionedResources } from './resources.js';
import { offlineLambdaInvoker } from './sfn-lambda.js';
import { createSqsPoller } from './sqs-poller.js';
import type { StackService } from './types.js';

/** One `sqs` event of a function, resolved to a local queue. */
export interface SqsEventSource {
  functionKey: string;
  /** The deployed function name, which serverless offline's invoke API answers to. */
  functionName: string;
  queue: ProvisionedQueue;
  batchSize: number;
  reportBatchItemFailures: boolean;
  enabled: boolean;
}

/** Every `sqs` event of the configuration whose queue exists locally; throws for a queue that does not. */
export function sqsEventSources(config: ServerlessConfig, resources: ProvisionedResources): SqsEventSource[] {
  return Object.entries(config.functions ?? {}).flatMap(([key, fn]) =>
    (fn.events ?? [])
      .filter((event) => 'sqs' in event)
      .map((event) => ({
        functionKey: key,
        functionName: resources.names[functionLogicalId(key)] ?? fn.name ?? key,
        ...mapping(key, event.sqs, resources),
      })),
  );
}

// `sqs: <arn>` or `sqs: { arn, batchSize, functionResponseType, enabled }`.
function mapping(key: string, sqs: unknown, resources: ProvisionedResources) {
  const spec = (typeof sqs === 'object' && sqs !== null ? sqs : { arn: sqs }) as {
    arn?: unknown;
    batchSize?: unknown;
    functionResponseType?: unknown;
    enabled?: unknown;
  };
  const arn = String(resolveIntrinsics(spec.arn, resources.scope));
  const queues = Object.values(resources.queues);
  // An ARN written out by hand names the queue by its last segment.
  const queue = queues.find((q) => q.arn === arn) ?? queues.find((q) => q.name === arn.split(':').at(-1));
  if (!queue) throw new Error(`sqs event of ${key}: no local queue for ${arn}`);
  return {
    queue,
    batchSize: spec.batchSize === undefined ? 10 : Number(spec.batchSize),
    reportBatchItemFailures: spec.functionResponseType === 'ReportBatchItemFailures',
    enabled: spec.enabled === undefined || String(spec.enabled) !== 'false',
  };
}

const local = (port: number) => `http://127.0.0.1:${port}`;

/** The pollers of every enabled `sqs` event; needs the queues (resources) and the functions (offline). */
export const sqsEventSourcesService: StackService = {
  name: 'sqs-event-sources',
  after: ['resources', 'offline'],
  async start(ctx) {
    if (!ctx.provisioned) throw new Error('sqs event sources need the provisioned resources');
    const sources = sqsEventSources(await ctx.config, ctx.provisioned).filter((source) => source.enabled);
    const client = new SQSClient({
      region: ctx.region,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      endpoint: local(ctx.ports.fauxqs),
    });
    const invoke = offlineLambdaInvoker(local(ctx.ports.lambda));
    const pollers = sources.map((source) =>
      createSqsPoller({
        client,
        queueUrl: source.queue.url,
        queueArn: source.queue.arn,
        region: ctx.region,
        batchSize: source.batchSize,
        reportBatchItemFailures: source.reportBatchItemFailures,
        invoke: (event) => invoke(source.functionName, event),
        log: ctx.log,
      }),
    );
    for (const poller of pollers) poller.start();
    for (const source of sources) {
      ctx.log.debug(
        `sqs: ${source.functionKey} consumes ${source.queue.name} (batch ${source.batchSize}` +
          `${source.reportBatchItemFailures ? ', ReportBatchItemFailures' : ''})`,
      );
    }
    return {
      stop: async () => {
        await Promise.all(pollers.map((poller) => poller.stop()));
        client.destroy();
      },
    };
  },
};
