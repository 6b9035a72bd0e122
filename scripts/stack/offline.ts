// `serverless offline start` in its own process group, ready once the HTTP API answers.

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { serverlessBin } from './config.js';
import { type GroupProcess, spawnGroup } from './process.js';
import type { StackPorts } from './types.js';
import { pollUntil } from './wait.js';

export interface OfflineOptions {
  /** Directory of serverless.yml. */
  cwd: string;
  ports: Pick<StackPorts, 'api' | 'lambda' | 'websocket' | 'alb'>;
  /** Complete environment of the child (process.env plus the stack's variables). */
  env: NodeJS.ProcessEnv;
  stage?: string;
  logFile?: string;
  console?: boolean;
  /** Path polled until it answers with any status. */
  readyPath?: string;
  readyTimeoutMs?: number;
}

export interface LocalOffline {
  /** Base URL of the HTTP API. */
  url: string;
  /** Base URL of the Lambda invoke API. */
  lambdaUrl: string;
  process: GroupProcess;
  stop(): Promise<void>;
}

/**
 * Where this serverless offline bundles the functions (serverless.yml custom.esbuild.outputWorkFolder): its own
 * folder per HTTP port, so that neither `npm run package` (which removes .esbuild) nor another stack (tests next to
 * `npm run dev`) deletes or rewrites the bundles it serves. Removed when the stack stops.
 */
export const offlineBuildFolder = (apiPort: number): string => `.esbuild-offline/${apiPort}`;

/** Starts serverless-offline (which builds every function with esbuild first) and waits until it serves HTTP. */
export async function startOffline(options: OfflineOptions): Promise<LocalOffline> {
  const { ports } = options;
  const args = [
    serverlessBin(),
    'offline',
    'start',
    ...['--host', '127.0.0.1', '--httpPort', String(ports.api), '--lambdaPort', String(ports.lambda)],
    ...['--websocketPort', String(ports.websocket), '--albPort', String(ports.alb), '--noSponsor'],
    ...(options.stage ? ['--stage', options.stage] : []),
  ];
  const colour = options.console && process.stdout.isTTY ? { FORCE_COLOR: '1' } : {};
  const buildFolder = offlineBuildFolder(ports.api);
  const child = spawnGroup(process.execPath, args, {
    name: 'offline',
    cwd: options.cwd,
    env: {
      ...options.env,
      ...colour,
      SLS_TELEMETRY_DISABLED: '1',
      SLS_NOTIFICATIONS_MODE: 'off',
      ARCADIA_ESBUILD_FOLDER: buildFolder,
    },
    logFile: options.logFile,
    console: options.console,
  });
  const url = `http://127.0.0.1:${ports.api}`;
  try {
    await pollUntil(
      'serverless offline',
      async () => {
        const response = await fetch(`${url}${options.readyPath ?? '/api-reference-json'}`, {
          signal: AbortSignal.timeout(15_000),
        });
        await response.arrayBuffer();
        return response.status;
      },
      {
        // Generous: the esbuild build of every function takes 30–60 s alone and several times that on a busy machine
        // (two stacks starting at once on 2 cores missed 240 s).
        timeoutMs: options.readyTimeoutMs ?? 480_000,
        intervalMs: 200,
        abortReason: () => (child.exitCode() === undefined ? undefined : `exited early:\n${child.tail()}`),
      },
    );
  } catch (error) {
    await child.stop();
    throw error;
  }
  return {
    url,
    lambdaUrl: `http://127.0.0.1:${ports.lambda}`,
    process: child,
    stop: async () => {
      await child.stop(10_000);
      rmSync(join(options.cwd, buildFolder), { recursive: true, force: true });
    },
  };
}
