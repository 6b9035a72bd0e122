// POST /token-launcher/launch and GET /token-launcher/launch/{jobId}: the launch rules (docs/launcher.md), the job
// creation under the game's launch lock, and the public view of a job.
import { randomUUID } from 'node:crypto';
import type { AuthContext } from '../core/auth.js';
import { AppError, errors } from '../core/errors.js';
import { logger } from '../core/logger.js';
import { errorFields } from '../core/original-stack.js';
import type { GameRecord } from '../games/index.js';
import { isController, requireGame } from '../games/index.js';
import type { LaunchJobView } from './contracts.js';
import { INITIAL_CURVE, quoteBuy } from './curve.js';
import { createJob, failJob, getLockHolder } from './lock-repository.js';
import { JOB_DEADLINE_MS, type JobRecord } from './model.js';
import * as repo from './repository.js';
import { assertBalance, assertEmissionDays, assertMayLaunch } from './rules.js';
import { symbolCandidates, validateSymbol } from './symbol.js';

/** Side effects of the launch endpoint, passed in by the handler (and by tests). */
export interface LaunchDeps {
  now: () => Date;
  /** Lamports held by a wallet address. */
  getBalance: (address: string) => Promise<bigint>;
  /** Start the launch state machine for a job; returns the execution ARN. */
  startExecution: (jobId: string) => Promise<string>;
  /** Base URL of the public API: the coin's metadata uri is the game's coin-metadata document there. */
  publicApiUrl: string;
}

export interface LaunchInput {
  gameId: string;
  emissionDays: number;
  buyAmount?: string | undefined;
  gameCoinSymbol?: string | null | undefined;
}

export interface LaunchResult {
  jobId: string;
  status: JobRecord['status'];
  progress: number;
  message: string;
  alreadyInProgress: boolean;
}

const summary = (job: JobRecord, alreadyInProgress: boolean): LaunchResult => ({
  jobId: job.jobId,
  status: job.status,
  progress: job.progress,
  message: job.message,
  alreadyInProgress,
});

/** The initial buy in lamports, 0n for none; 400 when it is too small to buy a single token base unit. */
const parseBuyAmount = (buyAmount: string | undefined): bigint => {
  if (buyAmount === undefined) return 0n;
  const lamports = BigInt(buyAmount);
  if (quoteBuy(INITIAL_CURVE, lamports).tokensOut === 0n) {
    throw errors.validation(`buyAmount ${buyAmount} lamports is too small to buy any token`, [
      { path: 'buyAmount', message: 'too small to buy any token' },
    ]);
  }
  return lamports;
};

const parseSymbol = (input: string | null | undefined): string | undefined => {
  if (input === undefined || input === null) return undefined;
  const check = validateSymbol(input);
  if (!check.valid)
    throw errors.validation(check.message, [{ path: 'gameCoinSymbol', message: check.message }]);
  return check.symbol;
};

const symbolTaken = (symbol: string) =>
  errors.validation(`gameCoinSymbol ${symbol} is already taken by another game coin; choose another`, [
    { path: 'gameCoinSymbol', message: 'is already taken' },
  ]);

/** The job record POST /token-launcher/launch queues (status waiting, nothing on chain yet). */
export const newJob = (
  auth: Pick<AuthContext, 'userId'>,
  game: Pick<GameRecord, 'id' | 'name'>,
  input: { emissionDays: number; buyAmount: bigint; symbol: string; custom: boolean },
  deps: Pick<LaunchDeps, 'now' | 'publicApiUrl'>,
): JobRecord => {
  const created = deps.now();
  const now = created.toISOString();
  return {
    jobId: randomUUID(),
    gameId: game.id,
    userId: auth.userId,
    status: 'waiting',
    progress: 0,
    stage: 'queued',
    message: 'Launch queued',
    error: null,
    emissionDays: input.emissionDays,
    buyAmount: input.buyAmount > 0n ? input.buyAmount.toString() : null,
    gameCoinSymbol: input.symbol,
    symbolSource: input.custom ? 'custom' : 'generated',
    coinName: game.name,
    coinUri: `${deps.publicApiUrl.replace(/\/+$/, '')}/games/id/${game.id}/coin-metadata.json`,
    coinMint: null,
    vaultAddress: null,
    sealedMintKey: null,
    sealedVaultKey: null,
    mintTx: null,
    supplyTx: null,
    buyTx: null,
    tokensBought: null,
    bundleTx: null,
    executionArn: null,
    deadlineAt: new Date(created.getTime() + JOB_DEADLINE_MS).toISOString(),
    createdAt: now,
    updatedAt: now,
    completedAt: null,
  };
};

const alreadyStarted = (error: unknown) => (error as { name?: string }).name === 'ExecutionAlreadyExists';

/**
 * Start the job's state machine; if that fails, the job fails at once and frees the game and the symbol. An
 * execution of the job that exists already (a concurrent request resumed the start, see resumeStart) runs it.
 */
const start = async (job: JobRecord, deps: LaunchDeps): Promise<void> => {
  let executionArn: string;
  try {
    executionArn = await deps.startExecution(job.jobId);
  } catch (error) {
    if (alreadyStarted(error)) return;
    logger.error('could not start the launch state machine', { jobId: job.jobId, ...errorFields(error) });
    await failJob(job, 'The launch could not be started; please try again', deps.now().toISOString());
    throw error;
  }
  await recordExecutionArn(job.jobId, executionArn);
};

// Informational only: the launch runs whether or not the ARN is recorded.
const recordExecutionArn = async (jobId: string, executionArn: string): Promise<void> => {
  await repo.setExecutionArn(jobId, executionArn).catch((error: unknown) => {
    logger.warn('could not record the execution ARN', { jobId, ...errorFields(error) });
  });
};

/**
 * A job still `waiting` without an execution ARN may have lost its state machine: the request that created it
 * died between the job's transaction and StartExecution, leaving the game's launch lock and the symbol held by
 * a job nothing drives. Start it (again). StartExecution is idempotent for a running execution with the same
 * name (the job id) and input, so a start that did happen, or one racing from the creating request, yields that
 * execution; an execution that already closed answers ExecutionAlreadyExists and is left alone. A failure here
 * does not fail the job (the creating request may still start it): the caller gets the error and retries.
 */
const resumeStart = async (job: JobRecord, deps: LaunchDeps): Promise<void> => {
  if (job.status !== 'waiting' || job.executionArn) return;
  let executionArn: string;
  try {
    executionArn = await deps.startExecution(job.jobId);
  } catch (error) {
    if (alreadyStarted(error)) return;
    throw error;
  }
  logger.warn('launch job was waiting without an execution ARN: its state machine is started', {
    jobId: job.jobId,
  });
  await recordExecutionArn(job.jobId, executionArn);
};

type Attempt = { result: LaunchResult } | { retry: true };

/** One pass over the rules and the job creation; `retry` when the game changed or a concurrent call raced it. */
const attemptLaunch = async (
  auth: AuthContext,
  input: { gameId: string; emissionDays: number; buyAmount: bigint; symbol: string | undefined },
  deps: LaunchDeps,
): Promise<Attempt> => {
  const game = await requireGame(input.gameId);
  const holder = await getLockHolder(game.id);
  const running = holder ? await repo.getJob(holder) : undefined;
  if (running) {
    await resumeStart(running, deps);
    return { result: summary(running, true) };
  }
  assertMayLaunch(game.coin, isController(game, auth.userId), deps.now());
  // Fresh from the identity provider: no embedded wallet is 400, delegation off 403, before anything is sent.
  const wallet = repo.requireDelegated(await repo.loadWallet(auth.userId, { fresh: true }));
  assertBalance(await deps.getBalance(wallet.address), input.buyAmount, wallet.address);
  const candidates = input.symbol ? [input.symbol] : symbolCandidates(game.name);
  for (const symbol of candidates) {
    const job = newJob(auth, game, { ...input, symbol, custom: input.symbol !== undefined }, deps);
    const outcome = await createJob(job, game);
    if (outcome === 'created') {
      await start(job, deps);
      return { result: summary(job, false) };
    }
    if (outcome !== 'symbolTaken') return { retry: true };
    if (input.symbol) throw symbolTaken(symbol);
  }
  throw errors.validation(
    `Every generated symbol for "${game.name}" is taken; choose a gameCoinSymbol yourself`,
    [{ path: 'gameCoinSymbol', message: 'required: generated symbols are taken' }],
  );
};

/**
 * Queue a game coin launch: validate, apply the coin and grace-period rules and the fee reserve,
 * then create the job under the game's launch lock and start the state machine. A launch already in progress
 * for the game is answered with its job.
 */
export const launchGameCoin = async (
  auth: AuthContext,
  body: LaunchInput,
  deps: LaunchDeps,
): Promise<LaunchResult> => {
  assertEmissionDays(body.emissionDays);
  const input = {
    gameId: body.gameId,
    emissionDays: body.emissionDays,
    buyAmount: parseBuyAmount(body.buyAmount),
    symbol: parseSymbol(body.gameCoinSymbol),
  };
  for (let attempt = 0; attempt < 4; attempt++) {
    const outcome = await attemptLaunch(auth, input, deps);
    if ('result' in outcome) return outcome.result;
  }
  throw new AppError('CONFLICT', 'The game changed while the launch was being queued; retry');
};

/** The public view of a job: one of three shapes: in progress, completed or failed. */
export const toJobView = (job: JobRecord): LaunchJobView => {
  const base = { jobId: job.jobId, gameId: job.gameId, message: job.message };
  if (job.status === 'completed') {
    return {
      ...base,
      status: 'completed',
      progress: 100,
      bundleTx: job.bundleTx ?? '',
      gtokenAddress: job.coinMint ?? '',
    };
  }
  if (job.status === 'failed') {
    return { ...base, status: 'failed', progress: job.progress, error: job.error ?? 'Launch failed' };
  }
  return { ...base, status: job.status, progress: job.progress };
};

/** GET /token-launcher/launch/{jobId}: the job's view, or 404. */
export const getLaunchJob = async (jobId: string): Promise<LaunchJobView> => {
  const job = await repo.getJob(jobId);
  if (!job) throw errors.notFound('Launch job');
  return toJobView(job);
};
