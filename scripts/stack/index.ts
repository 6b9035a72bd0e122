// The local stack: DynamoDB Local, fauxqs (S3 + SQS), the Step Functions and Secrets Manager stand-ins and
// serverless offline, with the resources of serverless.yml created on them. Used by `npm run dev` and the vitest
// global setup.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadServerlessConfig } from './config.js';
import { clearResolvedEnvironments, resolvedEnvironmentFile } from './function-environment.js';
import { consoleLogger } from './log.js';
import { resolvePorts } from './ports.js';
import type { ProvisionedResources } from './resources.js';
import { stackServices } from './services.js';
import type {
  ChildOutput,
  RunningService,
  StackContext,
  StackEnv,
  StackLogger,
  StackPorts,
  StackService,
} from './types.js';

export type { StackEnv, StackLogger, StackPorts } from './types.js';

/** The project root: serverless.yml and node_modules live here. */
export const PROJECT_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

export interface StackOptions {
  /** `fixed`: the well-known dev ports (3000, 3002, 8000, 4566, 8083, 8084, …); `free`: OS-assigned. Default `free`. */
  ports?: 'fixed' | 'free';
  /** Root of logs and (when `persist`) data. Default: a new temporary directory, removed on stop. */
  dataDir?: string;
  /** Delete `dataDir` before starting. */
  fresh?: boolean;
  /** Keep data under `dataDir` across restarts. Default: true when `dataDir` is given. */
  persist?: boolean;
  /** Start serverless offline (HTTP API + Lambda invoke API). Default true. */
  offline?: boolean;
  /**
   * Consume the queues of the functions' `sqs` events like Lambda's event source mappings (needs `offline`).
   * Default false: tests invoke the consumers themselves and read the queues directly.
   */
  sqsEventSources?: boolean;
  /** Where serverless offline writes: the console or `<dataDir>/logs/offline.log`. Default `file`. */
  childOutput?: ChildOutput;
  log?: StackLogger;
  /** Directory of serverless.yml. Default: the project root. */
  cwd?: string;
}

export interface Stack {
  /**
   * AWS_REGION, credentials, AWS_ENDPOINT_URL_{DYNAMODB,S3,SQS,SFN,SECRETS_MANAGER}, S3_FORCE_PATH_STYLE, API_BASE_URL,
   * LAMBDA_INVOKE_URL, IMAGES_BASE_URL (the images bucket on the S3 stand-in), VAULT_KEY_SECRET_ID and
   * SECRETS_KEY_SECRET_ID (the functions' secrets, for code that runs as them in-process).
   */
  env: StackEnv;
  /** Human-facing URLs by service (api, apiReference, dynamodb, s3, sqs, stepFunctions, lambda). */
  urls: Record<string, string>;
  ports: StackPorts;
  dataDir: string;
  resources?: ProvisionedResources;
  /**
   * `provider.environment` of serverless.yml as resolved (string values only): what serverless offline gives
   * every handler, for tests that invoke handlers in-process.
   */
  functionEnv: Record<string, string>;
  /** Resolves with the name of the first child service (DynamoDB Local, serverless offline) that ends. */
  exited: Promise<string>;
  /** Stops every service (children as whole process groups); safe to call more than once. */
  stop(): Promise<void>;
}

const REGION = 'us-east-1';
const ACCOUNT_ID = '000000000000';

/** Starts the whole local stack and resolves once every service answers. */
export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const major = Number(process.versions.node.split('.')[0]);
  if (major < 22)
    throw new Error(`the local stack needs Node 22 (running ${process.version}); use npm scripts`);
  const log = options.log ?? consoleLogger();
  const cwd = options.cwd ?? PROJECT_ROOT;
  const ports = await resolvePorts(options.ports ?? 'free');
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ? resolve(options.dataDir) : mkdtempSync(join(tmpdir(), 'arcadia-stack-'));
  if (options.fresh && !ownsDataDir) rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });

  // serverless offline waits for this run's file, never an earlier run's.
  clearResolvedEnvironments(resolvedEnvironmentFile(dataDir));

  const config = loadServerlessConfig(cwd);
  config.catch(() => {}); // awaited by the resources service; avoid an unhandled rejection if we fail first
  const ctx: StackContext = {
    cwd,
    ports,
    region: REGION,
    accountId: ACCOUNT_ID,
    dataDir,
    persist: options.persist ?? !ownsDataDir,
    childOutput: options.childOutput ?? 'file',
    log,
    config,
    env: { AWS_REGION: REGION, AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local' },
    urls: {},
    resolvedEnvironmentFile: resolvedEnvironmentFile(dataDir),
  };
  const services = stackServices({
    offline: options.offline ?? true,
    sqsEventSources: options.sqsEventSources ?? false,
  });
  for (const service of services) Object.assign(ctx.env, service.env?.(ports));

  const running: Started[] = [];
  const startedAt = Date.now();
  try {
    await startServices(services, ctx, running);
  } catch (error) {
    await stopAll(running, log);
    if (ownsDataDir) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  log.info(`local stack ready in ${Date.now() - startedAt} ms`);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= stopAll(running, log).then(() => {
      if (ownsDataDir && !process.env.ARCADIA_KEEP_STACK_DATA)
        rmSync(dataDir, { recursive: true, force: true });
    });
    return stopping;
  };
  const exited = Promise.race(
    running.flatMap(({ name, service }) => (service.exited ? [service.exited.then(() => name)] : [])),
  );
  return {
    env: { ...ctx.env },
    urls: { ...ctx.urls },
    ports: ctx.ports,
    dataDir,
    resources: ctx.provisioned,
    functionEnv: stringValues((await config).provider.environment ?? {}),
    exited,
    stop,
  };
}

function stringValues(record: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(record).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

type Started = { name: string; service: RunningService };

// Starts every service as soon as the services it names in `after` run. Each one that started is added to
// `running` (so that after a failure the caller can stop them); the first failure is rethrown.
async function startServices(services: StackService[], ctx: StackContext, running: Started[]): Promise<void> {
  const starts = new Map<string, Promise<void>>();
  for (const service of services) {
    const dependencies = (service.after ?? []).map(
      (name) =>
        starts.get(name) ?? Promise.reject(new Error(`${service.name} needs ${name}, listed after it`)),
    );
    const start = Promise.all(dependencies).then(async () => {
      const serviceStart = Date.now();
      const started = await service.start(ctx);
      running.push({ name: service.name, service: started });
      Object.assign(ctx.urls, started.urls);
      ctx.log.debug(`${service.name} ready in ${Date.now() - serviceStart} ms`);
    });
    starts.set(service.name, start);
  }
  const failure = (await Promise.allSettled(starts.values())).find((result) => result.status === 'rejected');
  if (failure) throw failure.reason;
}

// Stops in reverse start order; one failing stop does not keep the others running.
async function stopAll(running: Started[], log: StackLogger): Promise<void> {
  for (const { name, service } of [...running].reverse()) {
    try {
      await service.stop();
      log.debug(`${name} stopped`);
    } catch (error) {
      log.warn(`${name} did not stop cleanly: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  running.length = 0;
}
