// POST /token-launcher/complete-launch and the launch's last stage: verify the coin on chain, then record it
// (coin record, game link and coin summary, job completed) in one transaction. Idempotent: a second call finds
// the job completed and answers the same record. Only the job's own launcher may complete it, only while it is the
// game's open launch (it holds the game's launch lock), and only under the rules a launch obeys (one active coin,
// the grace period): a failed or superseded job stays failed.
import type { ChainReader } from '../chain/index.js';
import { initialBuyReceipt, receiptUsed, vaultTokenAccount } from '../chain/index.js';
import { AppError, errors } from '../core/errors.js';
import { countMetricBy } from '../core/metrics.js';
import type { CoinSummary } from '../games/index.js';
import { getGame, isController } from '../games/index.js';
import { completeJob, getCoin } from './coin-repository.js';
import { findSignedBy } from './coin-steps.js';
import { verifyLaunchedCoin } from './coin-verify.js';
import { getLockHolder } from './lock-repository.js';
import { type CoinRecord, isOpen, type JobRecord } from './model.js';
import * as repo from './repository.js';
import { assertMayLaunch, emissionWindow } from './rules.js';

export interface CompleteDeps {
  chain: ChainReader;
  now: () => Date;
}

export interface CompletionView {
  alreadyCompleted: boolean;
  jobId: string;
  gameId: string;
  gtokenAddress: string;
  bundleTx: string;
  coin: {
    gtokenAddress: string;
    gameCoinSymbol: string;
    emissionDays: number;
    status: string;
    emissionStartAt: string;
    emissionEndAt: string;
  };
}

/** The failure outcome: 400 with every reason in `details`. */
export const completionFailure = (coinMint: string, problems: string[]) =>
  new AppError(
    'VALIDATION_ERROR',
    `Launch of ${coinMint} cannot be completed: ${problems.join('; ')}`,
    problems.map((message) => ({ path: 'gtokenAddress', message })),
  );

/** 409: the job is not (or no longer) the game's open launch. */
const notOpenLaunch = (job: JobRecord) =>
  new AppError(
    'CONFLICT',
    job.status === 'failed'
      ? `Launch job ${job.jobId} failed (${job.error ?? 'Launch failed'}); start a new launch instead`
      : `Launch job ${job.jobId} is no longer this game's launch in progress; it cannot be completed`,
  );

const view = (coin: CoinRecord, alreadyCompleted: boolean): CompletionView => ({
  alreadyCompleted,
  jobId: coin.jobId,
  gameId: coin.gameId,
  gtokenAddress: coin.coinMint,
  bundleTx: coin.bundleTx,
  coin: {
    gtokenAddress: coin.coinMint,
    gameCoinSymbol: coin.gameCoinSymbol,
    emissionDays: coin.emissionDays,
    status: coin.status,
    emissionStartAt: coin.emissionStartAt,
    emissionEndAt: coin.emissionEndAt,
  },
});

/**
 * The launch's final transaction as the chain shows it: the initial buy (found by its receipt account) when the
 * launch asked for one, else the supply transaction (the one that created the vault's token account).
 */
const findBundleTx = async (
  chain: ChainReader,
  job: JobRecord,
  coinMint: string,
): Promise<{ signature: string } | { problem: string }> => {
  if (!job.vaultAddress) return { problem: 'the launch never reserved its vault' };
  const vault = job.vaultAddress;
  if (job.buyAmount) {
    const receipt = await initialBuyReceipt(vault);
    // Used only by the vault-signed buy: a stranger's transfer to the receipt is no initial buy.
    if (!receiptUsed(await chain.getAccountInfo(receipt)))
      return { problem: `the initial buy of ${job.buyAmount} lamports has not landed` };
    const signature = await findSignedBy(chain, receipt, vault, [job.buyTx]);
    return signature ? { signature } : { problem: 'the initial buy transaction cannot be found' };
  }
  if (job.supplyTx) {
    const state = await chain.getSignatureStatus(job.supplyTx);
    if (state.status !== 'unknown' && state.status !== 'failed') return { signature: job.supplyTx };
  }
  const signature = await findSignedBy(chain, await vaultTokenAccount(coinMint, vault), vault);
  return signature ? { signature } : { problem: 'the supply transaction cannot be found' };
};

const alreadyCompleted = async (coinMint: string): Promise<CompletionView> => {
  const coin = await getCoin(coinMint);
  if (!coin) throw new Error(`Job of ${coinMint} is completed but its coin record is missing`);
  return view(coin, true);
};

type Attempt = { done: CompletionView } | { retry: true };

/** The checks before the chain is read: whose job it is, whether it is still the game's open launch. */
const assertMayComplete = async (job: JobRecord, callerId: string): Promise<void> => {
  if (job.userId !== callerId)
    throw errors.forbidden('Only the user who started this launch may complete it');
  if (!isOpen(job) || (await getLockHolder(job.gameId)) !== job.jobId) throw notOpenLaunch(job);
};

const attemptCompletion = async (
  coinMint: string,
  jobId: string,
  callerId: string,
  deps: CompleteDeps,
): Promise<Attempt> => {
  const job = await repo.getJob(jobId);
  if (!job) throw completionFailure(coinMint, ['its launch job no longer exists']);
  if (job.status === 'completed' && job.userId === callerId)
    return { done: await alreadyCompleted(coinMint) };
  await assertMayComplete(job, callerId);
  const game = await getGame(job.gameId);
  if (!game) throw completionFailure(coinMint, ['its game no longer exists']);
  const now = deps.now();
  // The rules of a launch hold at its completion too: no second active coin, the grace period's controller only.
  assertMayLaunch(game.coin, isController(game, job.userId), now);
  const verification = await verifyLaunchedCoin(deps.chain, coinMint, {
    name: job.coinName,
    symbol: job.gameCoinSymbol,
    uri: job.coinUri,
  });
  const bundle = verification.ok ? await findBundleTx(deps.chain, job, coinMint) : undefined;
  const problems = [...verification.problems, ...(bundle && 'problem' in bundle ? [bundle.problem] : [])];
  if (problems.length > 0 || !bundle || !('signature' in bundle)) throw completionFailure(coinMint, problems);
  const window = emissionWindow(now, job.emissionDays);
  const coin: CoinRecord = {
    coinMint,
    gameId: job.gameId,
    jobId: job.jobId,
    gameCoinSymbol: job.gameCoinSymbol,
    name: job.coinName,
    uri: job.coinUri,
    emissionDays: job.emissionDays,
    status: 'active',
    ...window,
    launchedBy: job.userId,
    bundleTx: bundle.signature,
    createdAt: now.toISOString(),
  };
  const summary: CoinSummary = {
    coinMint,
    gameCoinSymbol: job.gameCoinSymbol,
    emissionDays: job.emissionDays,
    status: 'active',
    ...window,
  };
  const outcome = await completeJob({ job, coin, game, summary, now: now.toISOString() });
  switch (outcome) {
    case 'completed':
      countMetricBy('LaunchesFinished', { outcome: 'completed' });
      return { done: view(coin, false) };
    case 'symbolTaken':
      throw completionFailure(coinMint, [`its symbol ${job.gameCoinSymbol} now belongs to another coin`]);
    case 'locked':
      throw notOpenLaunch(job);
    default:
      // alreadyCompleted (a concurrent call won) or the game changed: look again.
      return { retry: true };
  }
};

/**
 * Verify a launched coin on chain and record it (POST /token-launcher/complete-launch) for `callerId`, who must be
 * the user who started its launch: success, already completed (same answer, `alreadyCompleted: true`), 403 for anyone
 * else, 409 when the job is not the game's open launch (failed, or superseded), the launch rules' errors, or a 400
 * listing why the chain does not show the coin complete.
 */
export const completeLaunch = async (
  coinMint: string,
  callerId: string,
  deps: CompleteDeps,
): Promise<CompletionView> => {
  const jobId = await repo.getMintJobId(coinMint);
  if (!jobId) throw completionFailure(coinMint, ['it is not a game coin launched by Arcadia']);
  for (let attempt = 0; attempt < 4; attempt++) {
    const outcome = await attemptCompletion(coinMint, jobId, callerId, deps);
    if ('done' in outcome) return outcome.done;
  }
  throw new AppError('CONFLICT', 'The game changed while the launch was being completed; retry');
};
