// Fault paths of the launch state machine. The shared stack's chain runs in another process, so this file starts
// its own local chain (to inject RPC faults) and its own Step Functions stand-in running the real ASL of
// infra/launch-state-machine.yml, whose Task states call the task handlers in process. Storage is the shared
// stack's DynamoDB. Shows: a transient RPC fault at every stage is retried and the launch completes with one mint
// and one buy; a permanent fault ends `failed` with a readable error, and neither retries nor re-runs mint or buy
// twice; transient faults beyond the retry budget end `failed` too.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { GetExecutionHistoryCommand, type HistoryEvent, SFNClient } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { type Chain, makeChain } from '../../lib/chain/index.js';
import { initialBuyReceipt, walletTokenAccount } from '../../lib/chain/spl.js';
import { INITIAL_CURVE, quoteBuy } from '../../lib/launcher/curve.js';
import { getJob } from '../../lib/launcher/repository.js';
import { getUser } from '../../lib/user/repository.js';
import { loadWallet } from '../../lib/user/wallet.js';
import { type Fault, type LocalChain, startLocalChain } from '../../scripts/chain/rpc-server.js';
import { type LocalRef, resolveIntrinsics } from '../../scripts/stack/intrinsics.js';
import { type LocalStepFunctions, startStepFunctions } from '../../scripts/stack/stepfunctions.js';
import { registerGame } from '../helpers/games.js';
import { type Handler, invoke } from '../helpers/http.js';
import { idpToken } from '../helpers/idp.js';
import { createDeveloper } from '../helpers/users.js';

const SOL = 1_000_000_000n;
type Task = (event: unknown) => Promise<unknown>;
/** The launch functions, imported once this file's chain and state machine are configured (see beforeAll). */
let launchHandler: Handler;
let getJobHandler: Handler;
let completeHandler: Handler;
let mintTask: Task;
let buyTask: Task;
const TASKS: Record<string, Task> = {};
const TASK_NAMES = [
  'launchTaskReserve',
  'launchTaskMint',
  'launchTaskBuy',
  'launchTaskComplete',
  'launchTaskFail',
];

let local: LocalChain;
let chain: Chain;
let stepFunctions: LocalStepFunctions;
let sfn: SFNClient;
/** Faults to inject right before a task's next invocation, by function name. */
const armed = new Map<string, Fault>();
/** Task invocations held back until the promise settles, by function name. */
const gates = new Map<string, Promise<void>>();
/** Every task invocation, in order. */
const calls: string[] = [];

/** The state machine of serverless.yml with its function references pointed at the in-process tasks. */
const launchDefinition = () => {
  const definition = parse(
    readFileSync(new URL('../../infra/launch-state-machine.yml', import.meta.url), 'utf8'),
  );
  const refs = new Map<string, LocalRef>(
    TASK_NAMES.map((name) => [
      name,
      { ref: name, attributes: { Arn: `arn:aws:lambda:us-east-1:000000000000:function:${name}` } },
    ]),
  );
  return resolveIntrinsics(definition, { refs, pseudo: {} });
};

beforeAll(async () => {
  local = await startLocalChain({ port: 0 });
  chain = makeChain({ rpcUrl: local.url, pollMs: 50 });
  stepFunctions = await startStepFunctions({
    port: 0,
    invoke: async (name, payload) => {
      calls.push(name);
      await gates.get(name);
      const fault = armed.get(name);
      if (fault) {
        armed.delete(name);
        local.injectFault(fault);
      }
      const task = TASKS[name];
      if (!task) throw new Error(`no task ${name}`);
      return (await task(payload)) as never;
    },
  });
  // A function reads its settings when its module loads (as a Lambda container does at cold start): set this
  // file's chain and state machine first, then import the functions.
  process.env.SOLANA_RPC_URL = local.url;
  process.env.AWS_ENDPOINT_URL_SFN = stepFunctions.endpoint;
  process.env.LAUNCH_STATE_MACHINE_ARN = stepFunctions.registerStateMachine('launch', launchDefinition());
  process.env.PUBLIC_API_URL ??= process.env.API_BASE_URL;
  vi.resetModules();
  launchHandler = (await import('../../functions/launcher/launch-game-coin.js')).handler;
  getJobHandler = (await import('../../functions/launcher/get-launch-job.js')).handler;
  completeHandler = (await import('../../functions/launcher/complete-launch.js')).handler;
  mintTask = (await import('../../functions/launcher/task-mint.js')).handler;
  buyTask = (await import('../../functions/launcher/task-buy.js')).handler;
  Object.assign(TASKS, {
    launchTaskReserve: (await import('../../functions/launcher/task-reserve.js')).handler,
    launchTaskMint: mintTask,
    launchTaskBuy: buyTask,
    launchTaskComplete: (await import('../../functions/launcher/task-complete.js')).handler,
    launchTaskFail: (await import('../../functions/launcher/task-fail.js')).handler,
  });
  sfn = new SFNClient({ endpoint: stepFunctions.endpoint });
});

afterAll(async () => {
  sfn?.destroy();
  await stepFunctions?.stop();
  await local?.stop();
});

beforeEach(() => {
  armed.clear();
  gates.clear();
  calls.length = 0;
  local.clearFaults();
});

/** A developer with a game and a funded embedded wallet. */
const newLaunch = async (lamports = SOL) => {
  const name = `faults-${randomUUID().slice(0, 8)}`;
  const dev = await createDeveloper(name);
  const [token, game] = await Promise.all([idpToken(name), registerGame(dev)]);
  const wallet = (await loadWallet(dev.arcId))?.address ?? '';
  await chain.airdrop(wallet, lamports);
  return { dev, token, wallet, game };
};

type LaunchBody = { data: { jobId: string; alreadyInProgress: boolean } };
const launch = async (token: string, body: unknown) => {
  const res = await invoke<LaunchBody>(launchHandler, {
    method: 'POST',
    path: '/token-launcher/launch',
    headers: { authorization: `Bearer ${token}` },
    body,
  });
  expect(res.status, res.text).toBe(200);
  return res.body.data;
};

type JobView = {
  status: string;
  progress: number;
  error?: string;
  gtokenAddress?: string;
  bundleTx?: string;
};
const pollJob = async (jobId: string, deadlineMs = 30_000): Promise<JobView> => {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const res = await invoke<{ data: JobView }>(getJobHandler, {
      method: 'GET',
      path: `/token-launcher/launch/${jobId}`,
      pathParameters: { jobId },
    });
    const job = res.body.data;
    if (job.status === 'completed' || job.status === 'failed') return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${job.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

const history = async (jobId: string): Promise<HistoryEvent[]> => {
  const executionArn = (await getJob(jobId))?.executionArn ?? '';
  // The execution closes right after the job does: wait for its last event.
  for (let i = 0; i < 50; i++) {
    const { events = [] } = await sfn.send(new GetExecutionHistoryCommand({ executionArn }));
    if (events.some((e) => e.type?.startsWith('Execution') && e.type !== 'ExecutionStarted')) return events;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('execution did not close');
};

const taskErrors = (events: HistoryEvent[]) =>
  events.filter((e) => e.type === 'TaskFailed').map((e) => e.taskFailedEventDetails?.error);

const successfulSignatures = async (address: string) =>
  (await chain.findSignatures(address, 50)).filter((s) => s.err === null);

describe('launch state machine under RPC faults', () => {
  it('retries a transient RPC fault at every stage and completes with one mint and one buy', async () => {
    const { token, wallet, game } = await newLaunch();
    const unavailable = (method: string): Fault => ({ method, status: 503 });
    armed.set('launchTaskReserve', unavailable('getBalance'));
    armed.set('launchTaskMint', unavailable('getAccountInfo'));
    armed.set('launchTaskBuy', unavailable('getAccountInfo'));
    armed.set('launchTaskComplete', unavailable('getAccountInfo'));
    const { jobId } = await launch(token, { gameId: game.id, emissionDays: 7, buyAmount: '200000000' });
    const job = await pollJob(jobId);
    expect(job.status, job.error).toBe('completed');
    expect(calls).toEqual([
      'launchTaskReserve',
      'launchTaskReserve',
      'launchTaskMint',
      'launchTaskMint',
      'launchTaskBuy',
      'launchTaskBuy',
      'launchTaskComplete',
      'launchTaskComplete',
    ]);
    expect(taskErrors(await history(jobId))).toEqual(Array(4).fill('ChainTransientError'));
    const mint = job.gtokenAddress ?? '';
    expect((await chain.getMint(mint))?.supply).toBe(1_000_000_000_000_000n);
    // create mint, mint supply, initial buy: each exactly once.
    expect(await successfulSignatures(mint)).toHaveLength(3);
    const receipt = await initialBuyReceipt((await getJob(jobId))?.vaultAddress ?? '');
    expect(await successfulSignatures(receipt)).toHaveLength(1);
    expect(await chain.getTokenAccountBalance(await walletTokenAccount(mint, wallet))).toBe(
      quoteBuy(INITIAL_CURVE, 200_000_000n).tokensOut,
    );
  }, 40_000);

  it('ends `failed` on a permanent fault, with a readable error and no second mint or buy', async () => {
    const { token, wallet, game } = await newLaunch();
    armed.set('launchTaskBuy', {
      method: 'sendTransaction',
      rpcError: {
        code: -32002,
        message: 'Transaction simulation failed: Error processing Instruction 3: custom program error: 0x12',
      },
    });
    const { jobId } = await launch(token, { gameId: game.id, emissionDays: 30, buyAmount: '100000000' });
    const job = await pollJob(jobId);
    expect(job).toMatchObject({ status: 'failed', progress: 50 });
    expect(job.error).toMatch(/^Launch failed while making the initial buy: .*custom program error: 0x12/);
    // A ChainError is not retried: one buy attempt, then the Catch.
    expect(calls).toEqual(['launchTaskReserve', 'launchTaskMint', 'launchTaskBuy', 'launchTaskFail']);
    const events = await history(jobId);
    expect(taskErrors(events)).toEqual(['ChainError']);
    expect(events.at(-1)?.type).toBe('ExecutionFailed');

    const stored = await getJob(jobId);
    const mint = stored?.coinMint ?? '';
    const receipt = await initialBuyReceipt(stored?.vaultAddress ?? '');
    const before = await successfulSignatures(mint);
    expect(before).toHaveLength(2); // create mint, mint supply
    expect(await chain.getAccountInfo(receipt)).toBeNull();
    // Re-running the stages (a redelivered or manual invocation) changes nothing: the job is closed.
    await expect(mintTask({ jobId })).resolves.toMatchObject({ status: 'failed' });
    await expect(buyTask({ jobId })).resolves.toMatchObject({ status: 'failed' });
    expect(await successfulSignatures(mint)).toHaveLength(2);
    expect(await chain.getAccountInfo(receipt)).toBeNull();
    expect(await chain.getTokenAccountBalance(await walletTokenAccount(mint, wallet))).toBe(0n);
    // complete-launch refuses the half-launched coin and says why.
    const completed = await invoke<{ error: { details: Array<{ message: string }> } }>(completeHandler, {
      method: 'POST',
      path: '/token-launcher/complete-launch',
      headers: { authorization: `Bearer ${token}` },
      body: { gtokenAddress: mint },
    });
    expect(completed.status).toBe(400);
    expect(completed.body.error.details).toEqual([
      { path: 'gtokenAddress', message: 'the initial buy of 100000000 lamports has not landed' },
    ]);
    // The game and its symbol were freed: a new launch starts and completes.
    const retry = await launch(token, { gameId: game.id, emissionDays: 30 });
    expect(retry).toMatchObject({ alreadyInProgress: false });
    expect(retry.jobId).not.toBe(jobId);
    expect((await pollJob(retry.jobId)).status).toBe('completed');
  }, 40_000);

  it('lets complete-launch finish by hand a launch whose last stage failed', async () => {
    const { dev, token, game } = await newLaunch();
    armed.set('launchTaskComplete', {
      method: 'getAccountInfo',
      rpcError: { code: -32602, message: 'Invalid params: injected permanent fault' },
    });
    const { jobId } = await launch(token, { gameId: game.id, emissionDays: 7, buyAmount: '10000000' });
    const failed = await pollJob(jobId);
    expect(failed).toMatchObject({ status: 'failed', progress: 80 });
    expect(failed.error).toMatch(/^Launch failed while completing the launch: .*injected permanent fault/);
    const mint = (await getJob(jobId))?.coinMint ?? '';
    type Completion = { data: { alreadyCompleted: boolean; jobId: string; bundleTx: string } };
    const complete = () =>
      invoke<Completion>(completeHandler, {
        method: 'POST',
        path: '/token-launcher/complete-launch',
        headers: { authorization: `Bearer ${token}` },
        body: { gtokenAddress: mint },
      });
    const first = await complete();
    expect(first.status, first.text).toBe(200);
    expect(first.body.data).toMatchObject({ alreadyCompleted: false, jobId });
    const job = await pollJob(jobId);
    expect(job).toMatchObject({ status: 'completed', progress: 100, gtokenAddress: mint });
    expect(job.bundleTx).toBe(first.body.data.bundleTx);
    expect((await chain.getTransactionLogs(job.bundleTx ?? '')).join('\n')).toContain('arcadia:initial-buy');
    const second = await complete();
    expect(second.body.data).toEqual({ ...first.body.data, alreadyCompleted: true });
    expect((await getUser(dev.arcId))?.stats.gameCoinsLaunched).toBe(1);
  }, 40_000);

  it('never mints twice when a stage runs several times at once (duplicate delivery, timed-out attempt)', async () => {
    const { token, game } = await newLaunch();
    let open = () => {};
    gates.set('launchTaskMint', new Promise<void>((resolve) => (open = resolve)));
    const { jobId } = await launch(token, { gameId: game.id, emissionDays: 7, buyAmount: '50000000' });
    // The machine's own Mint invocation waits at the gate; two more copies of the stage race each other.
    await vi.waitFor(() => expect(calls).toContain('launchTaskMint'), { timeout: 10_000 });
    const copies = await Promise.all([mintTask({ jobId }), mintTask({ jobId })]);
    expect(copies).toEqual([
      { jobId, status: 'active', progress: 50 },
      { jobId, status: 'active', progress: 50 },
    ]);
    open();
    const job = await pollJob(jobId);
    expect(job.status, job.error).toBe('completed');
    const mint = job.gtokenAddress ?? '';
    expect((await chain.getMint(mint))?.supply).toBe(1_000_000_000_000_000n);
    expect(await successfulSignatures(mint)).toHaveLength(3); // create mint, mint supply, initial buy
  }, 40_000);

  it('ends `failed` when a transient fault outlasts the retries', async () => {
    const { token, game } = await newLaunch();
    armed.set('launchTaskReserve', { method: 'getBalance', status: 503, times: 10 });
    const { jobId } = await launch(token, { gameId: game.id, emissionDays: 7 });
    const job = await pollJob(jobId, 40_000);
    expect(job).toMatchObject({ status: 'failed', progress: 0 });
    expect(job.error).toMatch(
      /^Launch failed while reserving the coin address: the blockchain network stayed unavailable after several retries/,
    );
    // The first attempt and four retries (MaxAttempts 4), then the Catch.
    expect(calls).toEqual([...Array(5).fill('launchTaskReserve'), 'launchTaskFail']);
    expect((await getJob(jobId))?.coinMint).toBeNull();
  }, 50_000);
});
