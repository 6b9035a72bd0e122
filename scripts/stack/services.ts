// The services of the local stack. To add one (the local identity provider, the local Solana JSON-RPC):
// write a StackService, give it a port in StackPorts/FIXED_PORTS, and list it in stackServices().
import { join } from 'node:path';
import {
  appSettingsService,
  consoleService,
  demoService,
  identityProviderService,
  localChainService,
  localPriceService,
} from './app.js';
import { startDynamoDbLocal } from './dynamodb.js';
import { startLocalFauxqs } from './fauxqs.js';
import {
  RESOLVED_ENVIRONMENT_FILE_VARIABLE,
  resolveEnvironments,
  writeResolvedEnvironments,
} from './function-environment.js';
import { startOffline } from './offline.js';
import { provisionResources } from './resources.js';
import { startLocalSecretsManager } from './secrets-manager.js';
import { sqsEventSourcesService } from './sqs-event-sources.js';
import { startStepFunctions } from './stepfunctions.js';
import type { StackContext, StackService } from './types.js';

const local = (port: number) => `http://127.0.0.1:${port}`;

/**
 * IMAGES_BASE_URL: in AWS, game images load through the CloudFront distribution (serverless.yml's default);
 * locally straight from the images bucket on the S3 stand-in, path-style. The URL needs the bucket's resolved
 * name, so this waits for the configuration (`serverless print`). A value set by the caller wins.
 */
async function exportImagesBaseUrl(ctx: StackContext): Promise<void> {
  if (ctx.env.IMAGES_BASE_URL || process.env.IMAGES_BASE_URL) return;
  const bucket = (await ctx.config).provider.environment?.IMAGES_BUCKET;
  if (typeof bucket !== 'string' || bucket === '')
    throw new Error('serverless.yml declares no IMAGES_BUCKET');
  ctx.env.IMAGES_BASE_URL = `${local(ctx.ports.fauxqs)}/${bucket}`;
}

/** DynamoDB Local (Java child process). */
export const dynamoDbService: StackService = {
  name: 'dynamodb',
  env: (ports) => ({ AWS_ENDPOINT_URL_DYNAMODB: local(ports.dynamodb) }),
  async start(ctx) {
    const db = await startDynamoDbLocal({
      port: ctx.ports.dynamodb,
      path: ctx.persist ? join(ctx.dataDir, 'dynamodb') : undefined,
      logFile: join(ctx.dataDir, 'logs', 'dynamodb.log'),
    });
    return { urls: { dynamodb: db.endpoint }, exited: db.process.exited, stop: db.stop };
  },
};

/** fauxqs: S3 and SQS, in this process. */
export const fauxqsService: StackService = {
  name: 'fauxqs',
  env: (ports) => ({
    AWS_ENDPOINT_URL_S3: local(ports.fauxqs),
    AWS_ENDPOINT_URL_SQS: local(ports.fauxqs),
    S3_FORCE_PATH_STYLE: 'true',
  }),
  async start(ctx) {
    const fauxqs = await startLocalFauxqs({
      port: ctx.ports.fauxqs,
      region: ctx.region,
      dataDir: ctx.persist ? join(ctx.dataDir, 'fauxqs') : undefined,
    });
    return { urls: { s3: fauxqs.endpoint, sqs: fauxqs.endpoint }, stop: fauxqs.stop };
  },
};

/** The Secrets Manager stand-in (./secrets-manager.ts), in this process. */
export const secretsManagerService: StackService = {
  name: 'secretsmanager',
  env: (ports) => ({ AWS_ENDPOINT_URL_SECRETS_MANAGER: local(ports.secretsManager) }),
  async start(ctx) {
    const secrets = await startLocalSecretsManager({
      port: ctx.ports.secretsManager,
      region: ctx.region,
      accountId: ctx.accountId,
      persistFile: ctx.persist ? join(ctx.dataDir, 'secretsmanager', 'secrets.json') : undefined,
    });
    return { urls: { secretsManager: secrets.endpoint }, stop: secrets.stop };
  },
};

/**
 * The functions' variables that name a secret (VAULT_KEY_SECRET_ID, SECRETS_KEY_SECRET_ID), exported to the
 * stack's environment: tests and scripts that call the code in-process act as the functions that are given it.
 * serverless offline passes a handler only its own declared environment, so the other functions still go without.
 */
function exportSecretIds(ctx: StackContext, functions: Record<string, Record<string, string>>): void {
  const arns = new Set(Object.values(ctx.provisioned?.secrets ?? {}).map((secret) => secret.arn));
  for (const environment of Object.values(functions))
    for (const [name, value] of Object.entries(environment)) if (arns.has(value)) ctx.env[name] = value;
}

/**
 * Tables, buckets, queues and secrets from `serverless print`; state machines resolved for the stand-in; the functions'
 * CloudFormation-valued environment resolved for serverless offline.
 */
export const resourcesService: StackService = {
  name: 'resources',
  after: ['dynamodb', 'fauxqs', 'secretsmanager'],
  async start(ctx) {
    const config = await ctx.config;
    ctx.provisioned = await provisionResources(
      config,
      {
        dynamodb: local(ctx.ports.dynamodb),
        s3: local(ctx.ports.fauxqs),
        sqs: local(ctx.ports.fauxqs),
        secretsManager: local(ctx.ports.secretsManager),
      },
      { region: ctx.region, accountId: ctx.accountId, log: ctx.log },
    );
    const environments = resolveEnvironments(config, ctx.provisioned.scope, ctx.log);
    writeResolvedEnvironments(ctx.resolvedEnvironmentFile, environments);
    exportSecretIds(ctx, environments.functions);
    await exportImagesBaseUrl(ctx);
    const { tables, buckets, queues, secrets, stateMachines } = ctx.provisioned;
    ctx.log.debug(
      `resources: ${Object.keys(tables).length} tables, ${Object.keys(buckets).length} buckets, ` +
        `${Object.keys(queues).length} queues, ${Object.keys(secrets).length} secrets, ` +
        `${stateMachines.length} state machines`,
    );
    return { stop: async () => {} };
  },
};

/** The Step Functions stand-in; Task states invoke functions through serverless-offline's Lambda API. */
export const stepFunctionsService: StackService = {
  name: 'stepfunctions',
  after: ['resources'],
  env: (ports) => ({ AWS_ENDPOINT_URL_SFN: local(ports.sfn), LAMBDA_INVOKE_URL: local(ports.lambda) }),
  async start(ctx) {
    const sfn = await startStepFunctions({
      port: ctx.ports.sfn,
      region: ctx.region,
      accountId: ctx.accountId,
      lambdaInvokeUrl: local(ctx.ports.lambda),
      stateMachines: ctx.provisioned?.stateMachines ?? [],
      persistFile: ctx.persist ? join(ctx.dataDir, 'stepfunctions', 'state.json') : undefined,
      log: ctx.log,
    });
    return { urls: { stepFunctions: sfn.endpoint, lambda: local(ctx.ports.lambda) }, stop: sfn.stop };
  },
};

/**
 * serverless offline: the HTTP API and the Lambda invoke API. Its esbuild build is the slowest start-up step,
 * and handlers only reach the other services when a request arrives, so it starts at once, beside them.
 */
export const offlineService: StackService = {
  name: 'offline',
  // The API's public URL is where offline serves it (coins' metadata uri points at it).
  env: (ports) => ({ API_BASE_URL: local(ports.api), PUBLIC_API_URL: local(ports.api) }),
  async start(ctx) {
    await exportImagesBaseUrl(ctx);
    const offline = await startOffline({
      cwd: ctx.cwd,
      ports: ctx.ports,
      // The plugin in serverless.yml waits for the resources service to write this file (./function-environment.ts).
      env: { ...process.env, ...ctx.env, [RESOLVED_ENVIRONMENT_FILE_VARIABLE]: ctx.resolvedEnvironmentFile },
      logFile: ctx.childOutput === 'file' ? join(ctx.dataDir, 'logs', 'offline.log') : undefined,
      console: ctx.childOutput === 'console',
    });
    return {
      urls: { api: offline.url, apiReference: `${offline.url}/api-reference` },
      exited: offline.process.exited,
      stop: offline.stop,
    };
  },
};

/**
 * The services to start, each after the ones it names in `after`. `sqsEventSources` (needs `offline`) polls the
 * queues of the functions' `sqs` events and invokes the functions, as Lambda's event source mappings do.
 */
export function stackServices({
  offline,
  sqsEventSources = false,
}: {
  offline: boolean;
  sqsEventSources?: boolean;
}): StackService[] {
  return [
    dynamoDbService,
    fauxqsService,
    secretsManagerService,
    resourcesService,
    stepFunctionsService,
    identityProviderService,
    localChainService,
    localPriceService,
    appSettingsService,
    // Extension point: the local identity provider and the local Solana JSON-RPC go here (their `env` then
    // reaches serverless offline, which starts with the whole stack's environment).
    ...(offline ? [offlineService, demoService, consoleService] : []),
    ...(offline && sqsEventSources ? [sqsEventSourcesService] : []),
  ];
}
