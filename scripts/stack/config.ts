// The framework's resolved configuration (`serverless print`): the single source of truth for resources.
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';

const run = promisify(execFile);
const require = createRequire(import.meta.url);

/** A CloudFormation resource as it appears under `resources.Resources`. */
export interface CfnResource {
  Type: string;
  Properties?: Record<string, unknown>;
  DependsOn?: string | string[];
}

/** A state machine in serverless-step-functions format (`stepFunctions.stateMachines.<key>`). */
export interface StepFunctionsMachineConfig {
  name?: string;
  id?: string;
  type?: string;
  definition?: unknown;
}

/** The parts of the resolved configuration the local stack reads. */
export interface ServerlessConfig {
  service: string;
  provider: { region?: string; stage?: string; timeout?: number; environment?: Record<string, unknown> };
  functions?: Record<
    string,
    {
      name?: string;
      handler?: string;
      /** Seconds (the provider's when absent). */
      timeout?: number;
      events?: Array<Record<string, unknown>>;
      environment?: Record<string, unknown>;
    }
  >;
  resources?: { Resources?: Record<string, CfnResource>; Conditions?: Record<string, unknown> };
  stepFunctions?: { stateMachines?: Record<string, StepFunctionsMachineConfig> };
}

/** Path of the framework CLI's entry script (osls, installed as `serverless`). */
export function serverlessBin(): string {
  return require.resolve('serverless/bin/serverless.js');
}

/** Runs `serverless print --format json` in `cwd` and returns the parsed configuration. */
export async function loadServerlessConfig(cwd: string, stage?: string): Promise<ServerlessConfig> {
  const args = [serverlessBin(), 'print', '--format', 'json', ...(stage ? ['--stage', stage] : [])];
  let stdout: string;
  try {
    ({ stdout } = await run(process.execPath, args, {
      cwd,
      env: { ...process.env, SLS_TELEMETRY_DISABLED: '1', SLS_NOTIFICATIONS_MODE: 'off' },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 60_000,
    }));
  } catch (error) {
    const { stdout: out = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`serverless print failed in ${cwd}:\n${`${out}\n${stderr}`.trim()}`);
  }
  // Plugins may print a notice before the document: start at the first line that opens an object.
  const start = stdout.search(/^\{/m);
  if (start < 0) throw new Error(`serverless print returned no JSON document:\n${stdout.slice(0, 2_000)}`);
  const config = JSON.parse(stdout.slice(start)) as ServerlessConfig;
  if (typeof config.service !== 'string' || typeof config.provider !== 'object') {
    throw new Error('serverless print returned an unexpected document (no service/provider)');
  }
  return config;
}
