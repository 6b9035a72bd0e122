// fauxqs (S3 + SQS on one port), embedded in this process through its library API.
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FauxqsServer } from 'fauxqs';

export interface FauxqsOptions {
  port: number;
  /** Directory for fauxqs' SQLite persistence; in memory when absent. */
  dataDir?: string;
  region?: string;
}

export interface LocalFauxqs {
  /** Endpoint for both S3 (path style) and SQS. */
  endpoint: string;
  server: FauxqsServer;
  stop(): Promise<void>;
}

const ACCOUNT_ID = '000000000000';
let queueUrlsPatched = false;

/** Starts fauxqs on `port`; queue URLs take the form `http://127.0.0.1:<port>/000000000000/<queue>`. */
export async function startLocalFauxqs(options: FauxqsOptions): Promise<LocalFauxqs> {
  const { startFauxqs } = await importFauxqs();
  await useRequestHostInQueueUrls();
  const dataDir = options.dataDir ? resolve(options.dataDir) : undefined;
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const server = await startFauxqs({
    port: options.port,
    logger: false,
    defaultRegion: options.region ?? 'us-east-1',
    ...(dataDir ? { dataDir } : {}),
  });
  return { endpoint: `http://127.0.0.1:${server.port}`, server, stop: () => server.stop() };
}

// fauxqs loads node:sqlite, whose ExperimentalWarning on Node 22 would be printed on every start.
async function importFauxqs(): Promise<typeof import('fauxqs')> {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: never[]) => {
    if (String(warning).includes('SQLite is an experimental feature')) return;
    emitWarning.call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return await import('fauxqs');
  } finally {
    process.emitWarning = emitWarning;
  }
}

// fauxqs 2 always builds queue URLs as `http://sqs.<region>.<host>:<port>/...` (host defaults to `localhost`,
// see its README "Configurable queue URL host"), and `*.localhost` names do not resolve on this machine, so
// SDK clients that follow the queue URL (the default) cannot reach the queue. The store's URL builder is
// replaced to use the Host the client connected to (`127.0.0.1:<port>`), as AWS itself answers on the
// endpoint the client used. Lookups are unaffected: fauxqs finds queues by the last path segment.
async function useRequestHostInQueueUrls(): Promise<void> {
  if (queueUrlsPatched) return;
  const file = (createRequire(import.meta.url).resolve.paths('fauxqs') ?? [])
    .map((dir) => join(dir, 'fauxqs', 'dist', 'sqs', 'sqsStore.js'))
    .find((candidate) => existsSync(candidate));
  if (!file) throw new Error('fauxqs: dist/sqs/sqsStore.js not found (fauxqs layout changed?)');
  const { SqsStore } = (await import(pathToFileURL(file).href)) as {
    SqsStore?: { prototype: { buildQueueUrl?: (...args: string[]) => string } };
  };
  if (typeof SqsStore?.prototype.buildQueueUrl !== 'function') {
    throw new Error('fauxqs: SqsStore.buildQueueUrl not found (fauxqs layout changed?)');
  }
  SqsStore.prototype.buildQueueUrl = (queueName: string, _port: string, requestHost: string) =>
    `http://${requestHost}/${ACCOUNT_ID}/${queueName}`;
  queueUrlsPatched = true;
}
