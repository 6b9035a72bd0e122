// vitest global setup: one local stack (DynamoDB Local, fauxqs, Step Functions stand-in, serverless offline)
// on free ports for the whole run, its environment provided to every test file (see tests/setup-env.ts).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { type StackEnv, startStack } from '../scripts/stack/index.js';
import { fileLogger } from '../scripts/stack/log.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** AWS_REGION, credentials, AWS_ENDPOINT_URL_*, S3_FORCE_PATH_STYLE, API_BASE_URL, LAMBDA_INVOKE_URL. */
    stackEnv: StackEnv;
    /** serverless.yml's resolved provider.environment (table and bucket names, ...), as handlers get it. */
    functionEnv: Record<string, string>;
    /** The file serverless offline (and so every function it runs) writes its output to. */
    offlineLog: string;
  }
}

/** Starts the stack, provides `stackEnv`, and returns the teardown that stops it (also after failed tests). */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'arcadia-test-'));
  const keep = Boolean(process.env.ARCADIA_KEEP_STACK_DATA);
  // The stack's chain enforces no provider plan, so its send budget (5 a second by default) only paced every
  // chain test: 53 s of the two crash sweeps' 133 s (docs/changelog.md). Off unless the run sets it; the
  // budget's own test runs a chain that enforces the plan, with the setting's default (rpc-budget.test.ts).
  process.env.SOLANA_RPC_SEND_PER_SECOND ??= '0';
  let stack: Awaited<ReturnType<typeof startStack>>;
  try {
    stack = await startStack({
      ports: 'free',
      dataDir,
      persist: false,
      // ARCADIA_TEST_OFFLINE=false skips serverless offline, for a quick run of files that call handlers in-process.
      offline: process.env.ARCADIA_TEST_OFFLINE !== 'false',
      childOutput: 'file',
      log: fileLogger(join(dataDir, 'logs', 'stack.log')),
    });
  } catch (error) {
    const offlineLog = join(dataDir, 'logs', 'offline.log');
    const tail = existsSync(offlineLog) ? readFileSync(offlineLog, 'utf8').slice(-4_000) : '';
    console.error(`local stack failed to start; logs kept in ${dataDir}/logs\n${tail}`);
    throw error;
  }
  project.provide('stackEnv', stack.env);
  project.provide('functionEnv', stack.functionEnv);
  project.provide('offlineLog', join(dataDir, 'logs', 'offline.log'));
  return async () => {
    await stack.stop();
    if (!keep) rmSync(dataDir, { recursive: true, force: true });
  };
}
