// Function environments with their CloudFormation references resolved against the local resources, for
// serverless offline (through ./offline-environment-plugin.js) and `npm run invoke`.
//
// serverless offline renders only Fn::Join and part of Fn::Sub in `environment`: a `{ Ref: SnapshotQueue }`
// reaches the handler as the string "[object Object]" (Node's worker env coerces the object), where CloudFormation
// gives the queue URL. Every object value of the provider's and the functions' environments is resolved here, as
// CloudFormation would resolve it, so that handlers run offline with the environment they get when deployed.
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerlessConfig } from './config.js';
import { type RefScope, resolveString } from './intrinsics.js';
import type { StackLogger } from './log.js';

/** The environment values that are CloudFormation expressions, resolved to strings. */
export interface ResolvedEnvironments {
  provider: Record<string, string>;
  /** By function key. */
  functions: Record<string, Record<string, string>>;
}

/** Where a stack with this data directory keeps the resolved values. */
export const resolvedEnvironmentFile = (dataDir: string): string =>
  join(dataDir, 'resolved-environment.json');

/** The variable that tells the plugin (in the serverless offline process) where the resolved values are. */
export const RESOLVED_ENVIRONMENT_FILE_VARIABLE = 'ARCADIA_RESOLVED_ENVIRONMENT_FILE';

/**
 * Resolves every non-string value of `environment`; one that cannot be resolved locally is logged and left out
 * (serverless offline then passes it on unresolved, as before).
 */
function resolveEntries(
  environment: Record<string, unknown> | undefined,
  scope: RefScope,
  where: string,
  log: StackLogger,
): Record<string, string> {
  const resolved: Record<string, string> = {};
  for (const [name, value] of Object.entries(environment ?? {})) {
    if (typeof value !== 'object' || value === null) continue;
    try {
      resolved[name] = resolveString(value, scope);
    } catch (error) {
      log.error(`${where} ${name} cannot be resolved locally: ${(error as Error).message}`);
    }
  }
  return resolved;
}

/** The CloudFormation-valued environment variables of the provider and of every function, resolved. */
export function resolveEnvironments(
  config: ServerlessConfig,
  scope: RefScope,
  log: StackLogger,
): ResolvedEnvironments {
  const functions: Record<string, Record<string, string>> = {};
  for (const [key, fn] of Object.entries(config.functions ?? {})) {
    const resolved = resolveEntries(fn.environment, scope, `function ${key}: environment`, log);
    if (Object.keys(resolved).length > 0) functions[key] = resolved;
  }
  return {
    provider: resolveEntries(config.provider.environment, scope, 'provider.environment', log),
    functions,
  };
}

/** Writes the resolved values at once (rename), so that a reader never sees half a file. */
export function writeResolvedEnvironments(file: string, environments: ResolvedEnvironments): void {
  writeFileSync(`${file}.tmp`, JSON.stringify(environments, null, 2));
  renameSync(`${file}.tmp`, file);
}

/** Removes the values of an earlier run, so that serverless offline waits for this run's. */
export function clearResolvedEnvironments(file: string): void {
  rmSync(file, { force: true });
}

/** The values a running stack wrote, if any. */
export function readResolvedEnvironments(file: string): ResolvedEnvironments | undefined {
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as ResolvedEnvironments;
}
