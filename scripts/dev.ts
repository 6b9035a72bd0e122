// `npm run dev [-- --fresh] [-- --debug]`: the whole service offline on fixed ports, data kept in .data/dev.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT, type Stack, startStack } from './stack/index.js';
import { consoleLogger } from './stack/log.js';
import { offlineLambdaInvoker } from './stack/sfn-lambda.js';

const { values: args } = parseArgs({
  options: {
    fresh: { type: 'boolean', default: false },
    debug: { type: 'boolean', default: false },
  },
});

const dataDir = join(PROJECT_ROOT, '.data', 'dev');
const log = consoleLogger({ debug: args.debug });
let stack: Stack | undefined;
let stopping = false;

/** Stops every service (child process groups included) and exits. A second signal exits at once. */
async function shutdown(code: number): Promise<void> {
  if (stopping) {
    // The exit hook of the stack still SIGKILLs every child process group.
    process.exit(code);
  }
  stopping = true;
  if (stack) log.info('stopping...');
  await stack?.stop();
  process.exit(code);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => void shutdown(0));
}

/**
 * The webhook outbox relay, which the deployment runs every minute (infra/functions.ts relayWebhooks), here every
 * 2 s through serverless offline, so that events reach local receivers in seconds; the delivery worker consumes
 * its queue like the other `sqs` functions (docs/webhooks.md, "Local").
 */
function startWebhookRelay(running: Stack): void {
  const invoke = offlineLambdaInvoker(running.env.LAMBDA_INVOKE_URL ?? '');
  let busy = false;
  const timer = setInterval(() => {
    if (busy || stopping) return;
    busy = true;
    invoke('arcadia-dev-relayWebhooks', {})
      .catch((error: unknown) => log.warn(`webhook relay: ${error instanceof Error ? error.message : error}`))
      .finally(() => {
        busy = false;
      });
  }, 2_000);
  timer.unref();
}

try {
  if (args.fresh) log.info(`--fresh: deleting ${dataDir}`);
  stack = await startStack({
    ports: 'fixed',
    dataDir,
    fresh: args.fresh,
    persist: true,
    offline: true,
    sqsEventSources: true,
    childOutput: 'console',
    log,
  });
} catch (error) {
  log.error(error instanceof Error ? error.message : String(error));
  await shutdown(1);
}

if (stack && !stopping) {
  // Other shells can use the same stack: `set -a; . .data/dev/stack.env; set +a`.
  const envFile = join(dataDir, 'stack.env');
  writeFileSync(
    envFile,
    `${Object.entries(stack.env)
      .map(([key, value]) => `${key}=${value}`)
      .join('\n')}\n`,
  );
  const { urls } = stack;
  console.log(
    [
      '',
      'Arcadia is running offline:',
      `  API                ${urls.api}`,
      `  API reference      ${urls.apiReference}`,
      `  OpenAPI document   ${urls.api}/api-reference-json`,
      `  Demo game          ${urls.demo} (SDK: sdk/README.md)`,
      `  Studio console     ${urls.console} (docs/console.md)`,
      `  DynamoDB           ${urls.dynamodb}`,
      `  S3 + SQS           ${urls.s3}`,
      `  Step Functions     ${urls.stepFunctions}`,
      `  Lambda invoke API  ${urls.lambda}`,
      `  data               ${dataDir} (npm run dev -- --fresh wipes it)`,
      `  environment        ${envFile}`,
      '',
      'Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
  startWebhookRelay(stack);
  void stack.exited.then((name) => {
    if (stopping) return;
    log.error(`${name} exited unexpectedly; stopping the stack`);
    void shutdown(1);
  });
}
