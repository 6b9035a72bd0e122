// Crash injection for in-process handlers: the process "dies" right before its (k+1)-th write.
//
// Every state-changing AWS call a request makes goes through one `send` patched here: lib's shared DynamoDB
// document client, the S3 adapter (lib/adapters/s3.ts), the launcher's Step Functions client, SQS clients. A
// request run under `underCrashPlan(plan, …)` may make `plan.allow` writes; the next write, and every call after
// it, rejects with ProcessCrash. The plan lives in an AsyncLocalStorage, so it follows the request into every
// promise it started: work that outlives the crashed attempt (a Promise.all branch still running, a swallowed
// error) stays dead too, as it would in a process that exited, and never writes late. Calls already sent when
// the crash happens complete (their effects persist), as they would once DynamoDB had received them.
// Not crash points: reads, and calls that are not AWS SDK calls (the chain's JSON-RPC, the identity provider).
import { AsyncLocalStorage } from 'node:async_hooks';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { S3Objects } from '../../lib/adapters/s3.js';
import type { TestResponse } from './http.js';

/** The simulated death of the process. */
export class ProcessCrash extends Error {
  override readonly name = 'ProcessCrash';
}

export interface CrashPlan {
  /** Writes allowed before the crash (Infinity: none, just count). */
  readonly allow: number;
  /** The writes made, labelled (`TransactWrite users+games`, `PutObject images`, ...). */
  readonly writes: string[];
  crashed: boolean;
  /** Calls sent and not yet answered. */
  inflight: number;
}

const WRITE_COMMANDS =
  /^(Put|Update|Delete|TransactWrite|BatchWrite|PutObject|DeleteObjects?|CopyObject|CreateMultipartUpload|UploadPart|CompleteMultipartUpload|StartExecution|SendMessage|SendMessageBatch)$/;

const plans = new AsyncLocalStorage<CrashPlan>();

const shortTable = (name: unknown) => String(name ?? '?').replace(/^arcadia-[a-z]+-/, '');

/** `Update ephemeral`, `TransactWrite play+users`, `PutObject images`, `StartExecution`. */
const label = (operation: string, input: Record<string, unknown>): string => {
  if (operation === 'TransactWrite') {
    const items = (input.TransactItems ?? []) as Array<Record<string, { TableName?: string }>>;
    const tables = [
      ...new Set(items.map((item) => shortTable(Object.values(item)[0]?.TableName)).filter(Boolean)),
    ];
    return `TransactWrite(${items.length}) ${tables.join('+')}`;
  }
  if (input.TableName) return `${operation} ${shortTable(input.TableName)}`;
  if (input.Bucket) return `${operation} ${shortTable(input.Bucket).replace(/-local$/, '')}`;
  return operation;
};

type Sendable = { send: (...args: unknown[]) => Promise<unknown> };

/** An SDK client's `send(command)`: the operation is the command's class name. */
const sdkCommand = (args: unknown[]) => ({
  operation: (args[0] as { constructor: { name: string } }).constructor.name.replace(/Command$/, ''),
  input: (args[0] as { input?: Record<string, unknown> }).input ?? {},
});

/** The S3 adapter's `send(operation, input)`. */
const s3Operation = (args: unknown[]) => ({
  operation: args[0] as string,
  input: (args[1] ?? {}) as Record<string, unknown>,
});

const patch = (prototype: Sendable, describe: typeof sdkCommand) => {
  const original = prototype.send;
  prototype.send = function send(this: unknown, ...args: unknown[]) {
    const plan = plans.getStore();
    if (!plan) return original.apply(this, args);
    if (plan.crashed) return Promise.reject(new ProcessCrash('the process is dead'));
    const { operation, input } = describe(args);
    if (WRITE_COMMANDS.test(operation)) {
      const write = label(operation, input);
      if (plan.writes.length >= plan.allow) {
        plan.crashed = true;
        return Promise.reject(new ProcessCrash(`crashed before write ${plan.writes.length + 1}: ${write}`));
      }
      plan.writes.push(write);
    }
    plan.inflight++;
    return original.apply(this, args).finally(() => {
      plan.inflight--;
    });
  };
};

let installed = false;

/** Patch the clients' `send` once per test file (the patch is inert outside `underCrashPlan`). */
export const installCrashHooks = (): void => {
  if (installed) return;
  installed = true;
  for (const Client of [DynamoDBDocumentClient, SFNClient, SQSClient]) {
    patch(Client.prototype as unknown as Sendable, sdkCommand);
  }
  patch(S3Objects.prototype as unknown as Sendable, s3Operation);
};

export const crashPlan = (allow: number): CrashPlan => ({ allow, writes: [], crashed: false, inflight: 0 });

/** Run `attempt` as a process that dies before its (allow+1)-th write; resolves once its sent calls settled. */
export const underCrashPlan = async <T>(
  plan: CrashPlan,
  attempt: () => Promise<T>,
): Promise<T | undefined> => {
  let result: T | undefined;
  try {
    result = await plans.run(plan, attempt);
  } catch (error) {
    if (!(error instanceof ProcessCrash)) throw error;
  }
  for (let i = 0; plan.inflight > 0 && i < 200; i++) await new Promise((r) => setTimeout(r, 25));
  return result;
};

/** What a check of the stored state found. */
export interface Findings {
  /** Partial or inconsistent state, or something applied twice. */
  violations: string[];
  /** A write the request should have made, missing after the retry. */
  lost: string[];
  /** Expected behaviour worth reporting (a duplicate by design, a best-effort counter). */
  notes: string[];
}

export const findings = (): Findings => ({ violations: [], lost: [], notes: [] });

/** One multi-write operation under test. */
export interface CrashOperation<F> {
  name: string;
  /** Fresh state for one input (one crash point). */
  setup(): Promise<F>;
  /** One attempt of the request, as a client sends it (re-signed, same body and idempotency keys). */
  request(fixture: F): Promise<TestResponse>;
  /** Invariants that hold at any time: after the crash and after the retry. */
  consistent(fixture: F, phase: 'crash' | 'retry', out: Findings): Promise<void>;
  /** After the retry: what the request must have done, exactly once. */
  complete(fixture: F, retry: TestResponse, context: { lostResponse: boolean }, out: Findings): Promise<void>;
  /** After every input ran (e.g. waiting for launches started in the background). */
  finish?(fixtures: F[], out: Findings): Promise<void>;
}

/** One line of the report. */
export interface CrashReport {
  operation: string;
  /** The write sequence of an uninterrupted run. */
  writes: string[];
  /** Crash points tried: after 0 … n writes (n = the last one: the response is lost). */
  inputs: number;
  /** 5xx answers to the retries. */
  fiveXX: number;
  violations: string[];
  lost: string[];
  notes: string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A client's retry: again after a 5xx, and after a 429 once Retry-After has passed; at most 4 attempts. */
const retry = async (send: () => Promise<TestResponse>, report: CrashReport): Promise<TestResponse> => {
  for (let attempt = 1; ; attempt++) {
    const res = await send();
    if (res.status >= 500) report.fiveXX++;
    if ((res.status !== 429 && res.status < 500) || attempt === 4) return res;
    await sleep(res.status === 429 ? Number(res.headers['retry-after'] ?? 1) * 1000 : 200);
  }
};

/**
 * For each k = 0 … n (n = the writes of an uninterrupted run): fresh state, the request dies before write k+1
 * (k = n: every write made, the response lost), invariants checked, the request retried, invariants and
 * completeness checked.
 */
export const runCrashOperation = async <F>(op: CrashOperation<F>): Promise<CrashReport> => {
  installCrashHooks();
  const report: CrashReport = {
    operation: op.name,
    writes: [],
    inputs: 0,
    fiveXX: 0,
    violations: [],
    lost: [],
    notes: [],
  };
  const probeFixture = await op.setup();
  const probe = crashPlan(Number.POSITIVE_INFINITY);
  const first = await underCrashPlan(probe, () => op.request(probeFixture));
  if (!first || first.status >= 400)
    throw new Error(`${op.name}: uninterrupted run answered ${first?.status}`);
  report.writes = [...probe.writes];
  const fixtures: F[] = [];
  for (let k = 0; k <= probe.writes.length; k++) {
    const fixture = await op.setup();
    fixtures.push(fixture);
    const plan = crashPlan(k);
    await underCrashPlan(plan, () => op.request(fixture));
    report.inputs++;
    if (!plan.crashed && k < probe.writes.length)
      report.notes.push(
        `k=${k}: this run made only ${plan.writes.length} writes, so its response was lost instead`,
      );
    const tag = (list: string[], from: Findings) => list.push(...from.violations.map((v) => `k=${k}: ${v}`));
    const afterCrash = findings();
    await op.consistent(fixture, 'crash', afterCrash);
    tag(report.violations, afterCrash);
    const res = await retry(() => op.request(fixture), report);
    const afterRetry = findings();
    await op.consistent(fixture, 'retry', afterRetry);
    await op.complete(fixture, res, { lostResponse: !plan.crashed }, afterRetry);
    tag(report.violations, afterRetry);
    report.lost.push(...afterRetry.lost.map((l) => `k=${k}: ${l}`));
    for (const note of [...afterCrash.notes, ...afterRetry.notes])
      if (!report.notes.includes(note)) report.notes.push(note);
  }
  if (op.finish) {
    const final = findings();
    await op.finish(fixtures, final);
    report.violations.push(...final.violations);
    report.lost.push(...final.lost);
    report.notes.push(...final.notes.filter((note) => !report.notes.includes(note)));
  }
  return report;
};

/** The report as a Markdown table. */
export const renderCrashTable = (reports: readonly CrashReport[]): string => {
  const rows = reports.map((r) =>
    [r.operation, r.writes.length, r.inputs, r.fiveXX, r.violations.length, r.lost.length].join(' | '),
  );
  return [
    '| operation | writes | inputs tried | 5xx on retry | invariant violations | lost writes |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows.map((row) => `| ${row} |`),
  ].join('\n');
};
