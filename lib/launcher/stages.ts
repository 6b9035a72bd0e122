// The stages of the launch state machine (infra/launch-state-machine.yml), one Lambda task each. Every stage is
// idempotent: it reloads the job, skips work the job or the chain shows done, and persists what it is about to
// send before sending it. Progress: reserve 10, mint 50, buy 80, complete 100.
import type { WalletSigner } from '../adapters/wallet-signer.js';
import type { Chain, SentTransaction } from '../chain/index.js';
import { generateLaunchKeys, openLaunchKeys } from './coin.js';
import { createCoinMint, initialBuy, type Launch, mintCoinSupply } from './coin-steps.js';
import { completeLaunch } from './complete.js';
import { LaunchError } from './failures.js';
import { isOpen, type JobRecord, STAGE_PROGRESS, type Stage } from './model.js';
import * as repo from './repository.js';
import { assertBalance } from './rules.js';

/** Side effects of the stages: the chain, the embedded-wallet signer, the clock. */
export interface StageDeps {
  chain: Chain;
  signer: WalletSigner;
  now: () => Date;
  /** Deadline of each chain transaction (send + confirm). Default 25 000: two fit in a 60 s task. */
  stepTimeoutMs?: number;
}

/** What every task returns: the next state's input. */
export interface StageResult {
  jobId: string;
  status: JobRecord['status'];
  progress: number;
}

const result = (job: JobRecord): StageResult => ({
  jobId: job.jobId,
  status: job.status,
  progress: job.progress,
});

const stamp = (deps: StageDeps) => deps.now().toISOString();

/** The job, which must exist. */
const loadJob = async (jobId: string): Promise<JobRecord> => {
  const job = await repo.getJob(jobId);
  if (!job) throw new LaunchError(`Launch job ${jobId} does not exist`);
  return job;
};

/** Record that a stage started; fails (without retry) when the job was closed meanwhile. */
const enter = async (job: JobRecord, stage: Stage, message: string, deps: StageDeps): Promise<JobRecord> => {
  const entered = await repo.updateOpenJob(job.jobId, {
    status: 'active',
    stage,
    message,
    updatedAt: stamp(deps),
  });
  if (!entered) throw new LaunchError(`The launch job is already ${(await loadJob(job.jobId)).status}`);
  return entered;
};

/** Record a stage's end: its progress, message and extra fields. */
const finish = async (
  job: JobRecord,
  stage: Stage,
  message: string,
  fields: Partial<JobRecord>,
  deps: StageDeps,
): Promise<JobRecord> => {
  const done = await repo.updateOpenJob(job.jobId, {
    ...fields,
    stage,
    progress: Math.max(job.progress, STAGE_PROGRESS[stage]),
    message,
    updatedAt: stamp(deps),
  });
  if (!done) throw new LaunchError(`The launch job is already ${(await loadJob(job.jobId)).status}`);
  return done;
};

const launchOf = async (job: JobRecord): Promise<Launch> => {
  if (!job.coinMint || !job.vaultAddress || !job.sealedMintKey || !job.sealedVaultKey)
    throw new LaunchError('The launch keys were never reserved');
  return {
    userId: job.userId,
    keys: await openLaunchKeys({
      coinMint: job.coinMint,
      vaultAddress: job.vaultAddress,
      sealedMintKey: job.sealedMintKey,
      sealedVaultKey: job.sealedVaultKey,
    }),
  };
};

/** Persist a signature before its transaction is sent (recovery after a crash mid-send). */
const persistSent =
  (jobId: string, field: 'mintTx' | 'supplyTx' | 'buyTx', deps: StageDeps) =>
  async (sent: SentTransaction) => {
    await repo.updateOpenJob(jobId, { [field]: sent.signature, updatedAt: stamp(deps) });
  };

/** Stage 10: re-check the wallet, then generate and persist the mint and vault keys (once). */
export const reserveStage = async (jobId: string, deps: StageDeps): Promise<StageResult> => {
  let job = await loadJob(jobId);
  if (!isOpen(job)) return result(job);
  job = await enter(job, 'reserve', 'Checking the wallet and reserving the coin address', deps);
  if (!job.coinMint) {
    const wallet = await repo.loadWallet(job.userId);
    if (!wallet) throw new LaunchError('The launching user has no embedded wallet');
    const balance = await deps.chain.getBalance(wallet.address);
    try {
      assertBalance(balance, BigInt(job.buyAmount ?? 0), wallet.address);
    } catch (error) {
      // The balance was spent since the launch was queued: not something a retry fixes.
      throw new LaunchError((error as Error).message);
    }
    const reserved = await repo.reserveKeys(job, await generateLaunchKeys(), stamp(deps));
    if (!reserved?.coinMint) throw new LaunchError('The launch job closed before its keys were reserved');
    job = reserved;
  }
  // The address stays private until the coin exists: the job view is public, and although a stranger's transfer
  // to it can no longer fail the mint (coin-steps), there is no reason to announce it early.
  job = await finish(job, 'reserve', 'Coin address reserved', {}, deps);
  return result(job);
};

/** Stage 50: the Token-2022 mint with its metadata, then the fixed supply into the vault, authorities revoked. */
export const mintStage = async (jobId: string, deps: StageDeps): Promise<StageResult> => {
  let job = await loadJob(jobId);
  if (!isOpen(job)) return result(job);
  job = await enter(job, 'mint', 'Creating the coin mint with its metadata', deps);
  const launch = await launchOf(job);
  const coinDeps = { chain: deps.chain, signer: deps.signer };
  const timeoutMs = deps.stepTimeoutMs ?? 25_000;
  const mint = await createCoinMint(
    coinDeps,
    launch,
    { name: job.coinName, symbol: job.gameCoinSymbol, uri: job.coinUri },
    { timeoutMs, onSent: persistSent(jobId, 'mintTx', deps) },
  );
  const supply = await mintCoinSupply(coinDeps, launch, {
    timeoutMs,
    onSent: persistSent(jobId, 'supplyTx', deps),
  });
  job = await finish(
    job,
    'mint',
    'Coin minted: fixed supply in the launch vault, mint and metadata authorities revoked',
    { mintTx: mint.signature ?? job.mintTx, supplyTx: supply.signature ?? job.supplyTx },
    deps,
  );
  return result(job);
};

/** Stage 80: the initial buy on the bonding curve, when the launch asked for one. */
export const buyStage = async (jobId: string, deps: StageDeps): Promise<StageResult> => {
  let job = await loadJob(jobId);
  if (!isOpen(job)) return result(job);
  const { buyAmount } = job;
  if (!buyAmount) {
    job = await finish(job, 'buy', 'No initial buy requested', {}, deps);
    return result(job);
  }
  job = await enter(job, 'buy', `Buying with ${buyAmount} lamports on the bonding curve`, deps);
  const buy = await initialBuy(
    { chain: deps.chain, signer: deps.signer },
    await launchOf(job),
    BigInt(buyAmount),
    {
      timeoutMs: deps.stepTimeoutMs ?? 25_000,
      onSent: persistSent(jobId, 'buyTx', deps),
      sentBefore: job.buyTx,
    },
  );
  job = await finish(
    job,
    'buy',
    `Initial buy done: ${buy.tokensOut} token base units for ${buy.lamportsIn} lamports`,
    { buyTx: buy.signature ?? job.buyTx, tokensBought: buy.tokensOut.toString() },
    deps,
  );
  return result(job);
};

/** Stage 100: complete-launch (verify on chain, record the coin, complete the job). */
export const completeStage = async (jobId: string, deps: StageDeps): Promise<StageResult> => {
  let job = await loadJob(jobId);
  if (job.status === 'completed') return result(job);
  if (!isOpen(job)) return result(job);
  job = await enter(job, 'complete', 'Verifying the coin on chain and recording it', deps);
  if (!job.coinMint) throw new LaunchError('The launch keys were never reserved');
  await completeLaunch(job.coinMint, job.userId, { chain: deps.chain, now: deps.now });
  return result(await loadJob(jobId));
};
