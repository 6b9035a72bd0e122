// Fault paths of the launch state machine. The shared stack's chain runs in another process, so this file starts
// its own local chain (to inject RPC faults) and its own Step Functions stand-in running the real ASL of
// infra/launch-state-machine.yml, whose Task states call the task handlers in process. Storage is the shared
// stack's DynamoDB. Shows: a transient RPC fault at every stage is retried and the launch completes with one mint
// and one buy; a permanent fault ends `failed` with a readable error, and neither retries nor re-runs mint or buy
// twice; transient faults beyond the retry budget end `failed` too. Also: a launch stalled past its execution
// timeout (scaled down here) is failed by the sweeper with a controlled clock; complete-launch only for the
// launch's own user and only while it is the game's open launch; a pre-funded mint address; figure bumps.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  DescribeExecutionCommand,
  GetExecutionHistoryCommand,
  type HistoryEvent,
  SFNClient,
} from '@aws-sdk/client-sfn';
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { type Chain, makeChain } from '../../lib/chain/index.js';
import { initialBuyReceipt, walletTokenAccount } from '../../lib/chain/spl.js';
import { getGame, saveGame } from '../../lib/games/repository.js';
import { INITIAL_CURVE, quoteBuy } from '../../lib/launcher/curve.js';
import { createJob, getLockHolder } from '../../lib/launcher/lock-repository.js';
import { getJob, overdueJobIds } from '../../lib/launcher/repository.js';
import { newJob } from '../../lib/launcher/service.js';
import type { SweepDeps, SweptJob } from '../../lib/launcher/sweeper.js';
import { syncGameFigures } from '../../lib/rewards/figures.js';
import { createPool } from '../../lib/rewards/pool-repository.js';
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
let sweepJob: (jobId: string, deps: SweepDeps) => Promise<SweptJob | undefined>;
let sweepDeps: SweepDeps;
/** Runs before every transaction of the launch that is guarded by the game's version (see the figures test). */
let beforeGuardedWrite: ((input: string) => Promise<void>) | undefined;
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
  const sweeper = await import('../../functions/launcher/sweep-launch-jobs.js');
  sweepDeps = sweeper.sideEffects;
  sweepJob = (await import('../../lib/launcher/index.js')).sweepJob;
  // The functions' own DynamoDB client (this module graph's): a hook before each of their transactions.
  const { dynamo } = await import('../../lib/adapters/dynamodb.js');
  dynamo().middlewareStack.add(
    (next) => async (args) => {
      if (beforeGuardedWrite && 'TransactItems' in args.input)
        await beforeGuardedWrite(JSON.stringify(args.input));
      return next(args);
    },
    { step: 'initialize', name: 'beforeGuardedWrite' },
  );
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
  beforeGuardedWrite = undefined;
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

type ErrorBody = { error: { code: string; message: string; details: Array<{ message: string }> } };
type Completion = { data: { alreadyCompleted: boolean; jobId: string; bundleTx: string } } & ErrorBody;
const completeBy = (token: string, gtokenAddress: string) =>
  invoke<Completion>(completeHandler, {
    method: 'POST',
    path: '/token-launcher/complete-launch',
    headers: { authorization: `Bearer ${token}` },
    body: { gtokenAddress },
  });

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
    // complete-launch refuses the failed launch and says why.
    const completed = await completeBy(token, mint);
    expect(completed.status).toBe(409);
    expect(completed.body.error.code).toBe('CONFLICT');
    expect(completed.body.error.message).toContain('Launch failed while making the initial buy');
    // The game and its symbol were freed: a new launch starts and completes.
    const retry = await launch(token, { gameId: game.id, emissionDays: 30 });
    expect(retry).toMatchObject({ alreadyInProgress: false });
    expect(retry.jobId).not.toBe(jobId);
    expect((await pollJob(retry.jobId)).status).toBe('completed');
  }, 40_000);

  it('refuses complete-launch for a failed launch (409) even when the chain shows the coin whole, and for a stranger (403)', async () => {
    const { token, game } = await newLaunch();
    const stranger = await newLaunch();
    armed.set('launchTaskComplete', {
      method: 'getAccountInfo',
      rpcError: { code: -32602, message: 'Invalid params: injected permanent fault' },
    });
    const { jobId } = await launch(token, { gameId: game.id, emissionDays: 7, buyAmount: '10000000' });
    const failed = await pollJob(jobId);
    expect(failed).toMatchObject({ status: 'failed', progress: 80 });
    expect(failed.error).toMatch(/^Launch failed while completing the launch: .*injected permanent fault/);
    const mint = (await getJob(jobId))?.coinMint ?? '';
    // The failure freed the game: reviving the job would slip a coin past the lock and the launch rules.
    const byOwner = await completeBy(token, mint);
    expect(byOwner.status, byOwner.text).toBe(409);
    expect(byOwner.body.error.code).toBe('CONFLICT');
    const byStranger = await completeBy(stranger.token, mint);
    expect(byStranger.status, byStranger.text).toBe(403);
    expect(byStranger.body.error.code).toBe('FORBIDDEN');
    expect((await pollJob(jobId)).status).toBe('failed');
    // Superseded: another launch takes the game; the old job still cannot complete.
    const next = await launch(token, { gameId: game.id, emissionDays: 7 });
    expect((await pollJob(next.jobId)).status).toBe('completed');
    expect((await completeBy(token, mint)).status).toBe(409);
    expect((await getGame(game.id))?.coin?.coinMint).toBe((await getJob(next.jobId))?.coinMint);
  }, 60_000);

  it('lets the launch’s own user complete it while it is the game’s open launch; nobody else', async () => {
    const { dev, token, game } = await newLaunch();
    const stranger = await newLaunch();
    let open = () => {};
    gates.set('launchTaskComplete', new Promise<void>((resolve) => (open = resolve)));
    const { jobId } = await launch(token, { gameId: game.id, emissionDays: 7, buyAmount: '10000000' });
    await vi.waitFor(() => expect(calls).toContain('launchTaskComplete'), { timeout: 20_000 });
    const mint = (await getJob(jobId))?.coinMint ?? '';
    const byStranger = await completeBy(stranger.token, mint);
    expect(byStranger.status, byStranger.text).toBe(403);
    expect(byStranger.body.error.code).toBe('FORBIDDEN');
    const first = await completeBy(token, mint);
    expect(first.status, first.text).toBe(200);
    expect(first.body.data).toMatchObject({ alreadyCompleted: false, jobId });
    open(); // the machine's own Complete stage finds the job completed
    const job = await pollJob(jobId);
    expect(job).toMatchObject({ status: 'completed', progress: 100, gtokenAddress: mint });
    expect(job.bundleTx).toBe(first.body.data.bundleTx);
    expect((await chain.getTransactionLogs(job.bundleTx ?? '')).join('\n')).toContain('arcadia:initial-buy');
    const second = await completeBy(token, mint);
    expect(second.body.data).toEqual({ ...first.body.data, alreadyCompleted: true });
    expect((await completeBy(stranger.token, mint)).status).toBe(403);
    expect((await getUser(dev.arcId))?.stats.gameCoinsLaunched).toBe(1);
  }, 40_000);

  it('applies the launch rules at completion: no second active coin', async () => {
    const { token, game } = await newLaunch();
    let open = () => {};
    gates.set('launchTaskComplete', new Promise<void>((resolve) => (open = resolve)));
    const { jobId } = await launch(token, { gameId: game.id, emissionDays: 7 });
    await vi.waitFor(() => expect(calls).toContain('launchTaskComplete'), { timeout: 20_000 });
    // Another coin became active meanwhile (storage written directly: no launch path can do it while locked).
    const record = await getGame(game.id);
    if (!record) throw new Error('no game');
    const other = Keypair.generate().publicKey.toBase58();
    const now = new Date();
    await saveGame(
      {
        ...record,
        version: record.version + 1,
        coin: {
          coinMint: other,
          gameCoinSymbol: 'OTHER',
          emissionDays: 7,
          status: 'active',
          emissionStartAt: now.toISOString(),
          emissionEndAt: new Date(now.getTime() + 86_400_000).toISOString(),
        },
      },
      record,
    );
    const mint = (await getJob(jobId))?.coinMint ?? '';
    const res = await completeBy(token, mint);
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.code).toBe('ACTIVE_GAME_COIN');
    open();
    const job = await pollJob(jobId);
    expect(job.status).toBe('failed');
    expect(job.error).toMatch(
      /^Launch failed while completing the launch: This game already has an active game coin/,
    );
    expect((await getGame(game.id))?.coin?.coinMint).toBe(other);
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

const executionStatus = async (executionArn: string) =>
  (await sfn.send(new DescribeExecutionCommand({ executionArn }))).status;

describe('launch jobs always end (the sweeper, with a controlled clock)', () => {
  it('fails a launch whose RPC stalled past the execution timeout; the game and symbol are freed and the next launch proceeds', async () => {
    const { token, game } = await newLaunch();
    // The execution timeout scaled down from 1800 s to 2 s, and an RPC that stalls 4 s inside Reserve.
    stepFunctions.registerStateMachine('launch', { ...(launchDefinition() as object), TimeoutSeconds: 2 });
    let jobId: string;
    try {
      armed.set('launchTaskReserve', { method: 'getBalance', delayMs: 4_000 });
      ({ jobId } = await launch(token, { gameId: game.id, emissionDays: 7 }));
      const executionArn = (await getJob(jobId))?.executionArn ?? '';
      await vi.waitFor(async () => expect(await executionStatus(executionArn)).toBe('TIMED_OUT'), {
        timeout: 10_000,
        interval: 200,
      });
      // The stalled task still finishes its stage after the execution ended; nothing drives the job further.
      await vi.waitFor(async () => expect((await getJob(jobId))?.progress).toBe(10), {
        timeout: 10_000,
        interval: 200,
      });
    } finally {
      stepFunctions.registerStateMachine('launch', launchDefinition());
    }
    // An execution-level timeout skips the Catch: MarkFailed never ran, the job is open and holds the game.
    expect(calls).not.toContain('launchTaskFail');
    const stuck = await getJob(jobId);
    expect(stuck).toMatchObject({ status: 'active', stage: 'reserve' });
    expect(await getLockHolder(game.id)).toBe(jobId);
    expect(await launch(token, { gameId: game.id, emissionDays: 7 })).toMatchObject({
      jobId,
      alreadyInProgress: true,
    });
    const deadline = Date.parse(stuck?.deadlineAt ?? '');
    expect(deadline - Date.parse(stuck?.createdAt ?? '')).toBe(35 * 60_000);
    // Before its deadline the sweeper leaves it; at the deadline the sweeper's query finds it and fails it.
    expect(await sweepJob(jobId, { ...sweepDeps, now: () => new Date(deadline - 1) })).toBeUndefined();
    expect((await getJob(jobId))?.status).toBe('active');
    expect(await overdueJobIds(new Date(deadline).toISOString(), 1_000)).toContain(jobId);
    expect(await sweepJob(jobId, { ...sweepDeps, now: () => new Date(deadline) })).toEqual({
      jobId,
      execution: 'TIMED_OUT',
      status: 'failed',
    });
    const failed = await pollJob(jobId);
    expect(failed).toMatchObject({ status: 'failed', progress: 10 });
    expect(failed.error).toBe(
      'Launch failed while reserving the coin address: the launch did not finish within 35 minutes (it timed out)',
    );
    expect(await getLockHolder(game.id)).toBeUndefined();
    expect(await overdueJobIds(new Date(deadline).toISOString(), 1_000)).not.toContain(jobId);
    // The next launch for the game proceeds, with the symbol the dead job had reserved.
    const next = await launch(token, { gameId: game.id, emissionDays: 7 });
    expect(next).toMatchObject({ alreadyInProgress: false });
    expect((await pollJob(next.jobId)).status).toBe('completed');
    expect((await getJob(next.jobId))?.gameCoinSymbol).toBe(stuck?.gameCoinSymbol);
  }, 60_000);

  it('stops an execution still running past the job’s deadline and fails the job; the held stage then mints nothing', async () => {
    const { token, game } = await newLaunch();
    let open = () => {};
    gates.set('launchTaskMint', new Promise<void>((resolve) => (open = resolve)));
    const { jobId } = await launch(token, { gameId: game.id, emissionDays: 7 });
    await vi.waitFor(() => expect(calls).toContain('launchTaskMint'), { timeout: 10_000 });
    const job = await getJob(jobId);
    const deadline = new Date(Date.parse(job?.deadlineAt ?? ''));
    expect(await sweepJob(jobId, { ...sweepDeps, now: () => deadline })).toEqual({
      jobId,
      execution: 'RUNNING',
      status: 'failed',
    });
    expect(await executionStatus(job?.executionArn ?? '')).toBe('ABORTED');
    expect(await getLockHolder(game.id)).toBeUndefined();
    open();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await getJob(jobId))?.status).toBe('failed');
    expect(await chain.getAccountInfo(job?.coinMint ?? '')).toBeNull();
  }, 40_000);

  it('fails a job whose execution never started', async () => {
    const { dev, game } = await newLaunch();
    const record = await getGame(game.id);
    if (!record) throw new Error('no game');
    const symbol = `NS${randomUUID()
      .replace(/[^a-f]/g, '')
      .slice(0, 4)
      .toUpperCase()}`;
    const job = newJob(
      { userId: dev.arcId },
      record,
      { emissionDays: 7, buyAmount: 0n, symbol, custom: true },
      { now: () => new Date(), publicApiUrl: 'http://localhost' },
    );
    expect(await createJob(job, record)).toBe('created');
    expect(await getLockHolder(game.id)).toBe(job.jobId);
    const swept = await sweepJob(job.jobId, { ...sweepDeps, now: () => new Date(job.deadlineAt ?? '') });
    expect(swept).toEqual({ jobId: job.jobId, execution: 'MISSING', status: 'failed' });
    expect((await getJob(job.jobId))?.error).toBe(
      'Launch failed while starting the launch: the launch did not finish within 35 minutes (it never started)',
    );
    expect(await getLockHolder(game.id)).toBeUndefined();
    // The symbol was released: another job may reserve it.
    const again = newJob(
      { userId: dev.arcId },
      record,
      { emissionDays: 7, buyAmount: 0n, symbol, custom: true },
      { now: () => new Date(), publicApiUrl: 'http://localhost' },
    );
    expect(await createJob(again, record)).toBe('created');
    await sweepJob(again.jobId, { ...sweepDeps, now: () => new Date(again.deadlineAt ?? '') });
  }, 30_000);
});

describe('a stranger’s transfer to the mint address', () => {
  it('cannot fail the launch: a pre-funded mint address is taken over with Allocate + Assign', async () => {
    const { token, game } = await newLaunch();
    let open = () => {};
    gates.set('launchTaskMint', new Promise<void>((resolve) => (open = resolve)));
    const { jobId } = await launch(token, { gameId: game.id, emissionDays: 7, buyAmount: '100000000' });
    await vi.waitFor(() => expect(calls).toContain('launchTaskMint'), { timeout: 10_000 });
    const mint = (await getJob(jobId))?.coinMint ?? '';
    expect(mint).not.toBe('');
    // The public job view does not show the address before the mint exists…
    const view = await invoke(getJobHandler, {
      method: 'GET',
      path: `/token-launcher/launch/${jobId}`,
      pathParameters: { jobId },
    });
    expect(view.text).not.toContain(mint);
    // …but addresses leak: someone sends it more than the rent-exempt minimum of an empty account (890,880).
    await chain.airdrop(mint, 2_000_000n);
    expect((await chain.getAccountInfo(mint))?.lamports).toBe(2_000_000n);
    open();
    const job = await pollJob(jobId);
    expect(job.status, job.error).toBe('completed');
    expect(job.gtokenAddress).toBe(mint);
    const info = await chain.getMint(mint);
    expect(info).toMatchObject({ isToken2022: true, supply: 1_000_000_000_000_000n, mintAuthority: null });
    // The stranger's transfer, then create mint, mint supply, initial buy.
    expect(await successfulSignatures(mint)).toHaveLength(4);
  }, 40_000);
});

describe('figure updates during a launch', () => {
  it('50 figure bumps neither refuse the launch request nor fail its completion; the version is the launch’s alone', async () => {
    const { token, game } = await newLaunch();
    await createPool({
      gameId: game.id,
      vaultAddress: Keypair.generate().publicKey.toBase58(),
      vaultSealedKey: 'unused by the figures',
      createdAt: new Date().toISOString(),
    });
    const before = await getGame(game.id);
    let price = 100;
    // What a stranger gets from a lamport into the public vault and a replayed purchase: the figures re-synced.
    // One at a time, so that each bump writes (two concurrent syncs of one game retry each other, and a sync that
    // loses five times in a row gives up until the next purchase).
    let queue = Promise.resolve();
    const bump = () => {
      queue = queue.then(() =>
        syncGameFigures(game.id, {
          price: {
            current: async () => ({ usd: ++price, source: 'test', at: new Date() }),
            solUsd: async () => ++price,
          },
          chain: { getBalance: async () => SOL },
        }),
      );
      return queue;
    };
    // Deterministically inside the window: right before each of the launch's writes guarded by the game (its job
    // creation, its completion), a bump lands; and more run alongside, 50 in all.
    let bumps = 0;
    beforeGuardedWrite = async (input) => {
      if (input.includes(`GAME#${game.id}`) && input.includes('version = :v') && bumps < 50) {
        bumps++;
        await bump();
      }
    };
    const { jobId, alreadyInProgress } = await launch(token, { gameId: game.id, emissionDays: 7 });
    expect(alreadyInProgress).toBe(false);
    const alongside = (async () => {
      while (bumps < 50) {
        bumps++;
        await bump();
      }
    })();
    const job = await pollJob(jobId);
    await alongside;
    beforeGuardedWrite = undefined;
    expect(job.status, job.error).toBe('completed');
    const after = await getGame(game.id);
    expect(after?.figuresVersion).toBe(50);
    expect(after?.totalRewardsPoolValueUsd).toBeGreaterThan(100);
    // Only the completion moved the version that guards launches.
    expect(after?.version).toBe((before?.version ?? 0) + 1);
    expect(after?.coin?.coinMint).toBe(job.gtokenAddress);
  }, 60_000);
});
