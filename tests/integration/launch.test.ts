// The token launcher against the local stack: POST /token-launcher/launch (in process) starts the launch state
// machine on the Step Functions stand-in, whose tasks run in serverless offline against the stack's local chain;
// the job is polled through GET /token-launcher/launch/{jobId}. Also every launch rule of SPEC §4.1, the grace
// period boundaries, concurrent launches and complete-launch.
import { randomUUID } from 'node:crypto';
import { GetExecutionHistoryCommand, type HistoryEvent, SFNClient } from '@aws-sdk/client-sfn';
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as batchByTokenIdsHandler } from '../../functions/games/batch-games-by-token-ids.js';
import { handler as getGameHandler } from '../../functions/games/get-game.js';
import { handler as gamesByTokenHandler } from '../../functions/games/get-games-by-token.js';
import { handler as completeHandler } from '../../functions/launcher/complete-launch.js';
import { handler as getJobHandler } from '../../functions/launcher/get-launch-job.js';
import { handler as launchHandler } from '../../functions/launcher/launch-game-coin.js';
import { makeChain } from '../../lib/chain/index.js';
import { walletTokenAccount } from '../../lib/chain/spl.js';
import type { GameView } from '../../lib/games/contracts.js';
import type { CoinSummary } from '../../lib/games/model.js';
import { getGame, saveGame } from '../../lib/games/repository.js';
import { INITIAL_CURVE, quoteBuy } from '../../lib/launcher/curve.js';
import { getJob } from '../../lib/launcher/repository.js';
import { generateSymbol } from '../../lib/launcher/symbol.js';
import { getUser } from '../../lib/user/repository.js';
import { loadWallet } from '../../lib/user/wallet.js';
import { registerGame } from '../helpers/games.js';
import { invoke } from '../helpers/http.js';
import { idpToken } from '../helpers/idp.js';
import { createDeveloper, type Developer } from '../helpers/users.js';
import {
  type Receiver,
  startDeliveryWorker,
  subscribeReceiver,
  verifiedPayloads,
  waitFor,
} from '../helpers/webhooks.js';

// The launch function's own settings (serverless.yml gives them to that function only).
process.env.LAUNCH_STATE_MACHINE_ARN =
  'arn:aws:states:us-east-1:000000000000:stateMachine:arcadia-dev-launch';
process.env.PUBLIC_API_URL ??= process.env.API_BASE_URL;

const SOL = 1_000_000_000n;
const HOUR = 60 * 60 * 1000;
const chain = makeChain({ rpcUrl: process.env.SOLANA_RPC_URL ?? '', pollMs: 50 });
const sfn = new SFNClient({});

interface Launcher extends Developer {
  name: string;
  token: string;
  wallet: string;
}

/** A user with an API key (to register games), an IdP token (to launch) and an embedded wallet, funded. */
const newLauncher = async (lamports = 0n): Promise<Launcher> => {
  const name = `launcher-${randomUUID().slice(0, 8)}`;
  const dev = await createDeveloper(name);
  const token = await idpToken(name);
  const wallet = (await loadWallet(dev.arcId))?.address;
  if (!wallet) throw new Error('expected an embedded wallet');
  if (lamports > 0n) await chain.airdrop(wallet, lamports);
  return { ...dev, name, token, wallet };
};

type ErrorBody = {
  error: { code: string; message: string; details: Array<{ path: string; message: string }> };
};
type LaunchBody = {
  data: { jobId: string; status: string; progress: number; message: string; alreadyInProgress: boolean };
} & ErrorBody;
type JobBody = {
  data: {
    jobId: string;
    gameId: string;
    status: string;
    progress: number;
    message: string;
    bundleTx?: string;
    gtokenAddress?: string;
    error?: string;
  };
} & ErrorBody;
type CompleteBody = {
  data: {
    alreadyCompleted: boolean;
    jobId: string;
    gameId: string;
    gtokenAddress: string;
    bundleTx: string;
    coin: CoinSummary;
  };
} & ErrorBody;

const launch = (token: string | undefined, body: unknown) =>
  invoke<LaunchBody>(launchHandler, {
    method: 'POST',
    path: '/token-launcher/launch',
    headers: token ? { authorization: `Bearer ${token}` } : {},
    body,
  });

const getLaunchJob = (jobId: string) =>
  invoke<JobBody>(getJobHandler, {
    method: 'GET',
    path: `/token-launcher/launch/${jobId}`,
    pathParameters: { jobId },
  });

const completeLaunch = (token: string | undefined, gtokenAddress: string) =>
  invoke<CompleteBody>(completeHandler, {
    method: 'POST',
    path: '/token-launcher/complete-launch',
    headers: token ? { authorization: `Bearer ${token}` } : {},
    body: { gtokenAddress },
  });

/** Poll the job every 250 ms until it completes or fails, within a deadline; returns it and every progress seen. */
const pollJob = async (jobId: string, deadlineMs = 15_000) => {
  const started = Date.now();
  const seen: number[] = [];
  for (;;) {
    const res = await getLaunchJob(jobId);
    expect(res.status).toBe(200);
    if (seen.at(-1) !== res.body.data.progress) seen.push(res.body.data.progress);
    if (res.body.data.status === 'completed' || res.body.data.status === 'failed')
      return { job: res.body.data, seen, elapsedMs: Date.now() - started };
    if (Date.now() - started > deadlineMs)
      throw new Error(`job ${jobId} still ${res.body.data.status} after ${deadlineMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
};

/** Progress each task reported, from the execution's history (the stand-in's GetExecutionHistory). */
const taskProgress = async (jobId: string) => {
  const executionArn = (await getJob(jobId))?.executionArn;
  if (!executionArn) throw new Error('job has no execution');
  // The job completes inside the last task: wait for the execution to close before reading its history.
  let events: HistoryEvent[] = [];
  for (let i = 0; i < 50 && !events.some((e) => e.type === 'ExecutionSucceeded'); i++) {
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, 100));
    events = (await sfn.send(new GetExecutionHistoryCommand({ executionArn }))).events ?? [];
  }
  return events
    .filter((e) => e.type === 'TaskStateExited')
    .map((e) => (JSON.parse(e.stateExitedEventDetails?.output ?? '{}') as { progress: number }).progress);
};

/** Give a game a coin directly in storage (to put it in an emission or a grace period). */
const setCoin = async (gameId: string, coin: Partial<CoinSummary>) => {
  const game = await getGame(gameId);
  if (!game) throw new Error('no game');
  const next = {
    ...game,
    version: game.version + 1,
    coin: {
      coinMint: Keypair.generate().publicKey.toBase58(),
      gameCoinSymbol: 'OLD',
      emissionDays: 7,
      status: 'active',
      emissionStartAt: new Date(Date.now() - 8 * 24 * HOUR).toISOString(),
      emissionEndAt: new Date(Date.now() + HOUR).toISOString(),
      ...coin,
    },
  };
  await saveGame(next, game);
};

const setOwner = async (gameId: string, ownerId: string) => {
  const game = await getGame(gameId);
  if (!game) throw new Error('no game');
  await saveGame({ ...game, version: game.version + 1, ownerId, ownershipVerified: true }, game);
};

afterAll(() => {
  sfn.destroy();
});

describe('a whole launch through the state machine', () => {
  let alice: Launcher;
  let game: GameView;
  let jobId: string;
  let final: Awaited<ReturnType<typeof pollJob>>;
  const buyAmount = 100_000_000n; // 0.1 SOL
  // The game's webhook endpoint for the launch events, delivered by the worker (in-process) on the stack's queue.
  let worker: Awaited<ReturnType<typeof startDeliveryWorker>> | undefined;
  let hooks: { receiver: Receiver; secret: string } | undefined;

  beforeAll(async () => {
    alice = await newLauncher(SOL);
    game = await registerGame(alice, { name: `Space Invaders ${randomUUID().slice(0, 4)}` });
    worker = await startDeliveryWorker();
    hooks = await subscribeReceiver(alice, game.id, ['launch.completed', 'launch.failed']);
    const started = Date.now();
    const res = await launch(alice.token, {
      gameId: game.id,
      emissionDays: 7,
      buyAmount: buyAmount.toString(),
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'waiting', progress: 0, alreadyInProgress: false });
    jobId = res.body.data.jobId;
    final = await pollJob(jobId);
    final.elapsedMs = Date.now() - started;
    console.info(`launch → completed in ${final.elapsedMs} ms (progress seen: ${final.seen.join(' → ')})`);
  }, 30_000);
  afterAll(async () => {
    await worker?.stop();
    await hooks?.receiver.close();
  });

  it('completes within 15 s, reporting progress 10 → 50 → 80 → 100', async () => {
    expect(final.job).toMatchObject({ status: 'completed', progress: 100, jobId, gameId: game.id });
    expect(final.elapsedMs).toBeLessThan(15_000);
    for (let i = 1; i < final.seen.length; i++)
      expect(final.seen[i]).toBeGreaterThanOrEqual(final.seen[i - 1] ?? 0);
    expect(await taskProgress(jobId)).toEqual([10, 50, 80, 100]);
    expect(final.job.gtokenAddress).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(final.job.bundleTx).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    expect(Object.keys(final.job).sort()).toEqual(
      ['bundleTx', 'gameId', 'gtokenAddress', 'jobId', 'message', 'progress', 'status'].sort(),
    );
  });

  it('sent one launch.completed webhook, signed, naming the job and the coin', async () => {
    const receiver = hooks?.receiver as Receiver;
    await waitFor(() => receiver.received.length >= 1, 10_000, 'launch.completed');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const payloads = verifiedPayloads(receiver, hooks?.secret ?? '');
    expect(payloads).toHaveLength(1);
    expect(payloads[0]).toMatchObject({
      type: 'launch.completed',
      version: 1,
      gameId: game.id,
      data: { jobId, coinMint: final.job.gtokenAddress, symbol: generateSymbol(game.name) },
    });
  });

  it('minted a Token-2022 coin with the game’s metadata, fixed supply and revoked authority', async () => {
    const mint = await chain.getMint(final.job.gtokenAddress ?? '');
    expect(mint).toMatchObject({
      isToken2022: true,
      decimals: 6,
      supply: 1_000_000_000_000_000n,
      mintAuthority: null,
      freezeAuthority: null,
      metadata: {
        name: game.name,
        symbol: generateSymbol(game.name),
        uri: `${process.env.PUBLIC_API_URL}/games/id/${game.id}/coin-metadata.json`,
        updateAuthority: null,
      },
    });
  });

  it('gave the buyer exactly the curve quote, in the transaction named bundleTx', async () => {
    const mint = final.job.gtokenAddress ?? '';
    const balance = await chain.getTokenAccountBalance(await walletTokenAccount(mint, alice.wallet));
    expect(balance).toBe(quoteBuy(INITIAL_CURVE, buyAmount).tokensOut);
    const logs = await chain.getTransactionLogs(final.job.bundleTx ?? '');
    expect(logs.join('\n')).toContain('arcadia:initial-buy');
  });

  it('recorded the coin on the game, the launcher’s stats, and freed no second launch', async () => {
    const res = await invoke<{ data: GameView }>(getGameHandler, {
      method: 'GET',
      path: `/games/id/${game.id}`,
      pathParameters: { id: game.id },
      query: { include_tokens: 'true' },
    });
    const coin = res.body.data.tokens?.gameCoin;
    expect(coin).toMatchObject({
      gtokenAddress: final.job.gtokenAddress,
      gameCoinSymbol: generateSymbol(game.name),
      emissionDays: 7,
      status: 'active',
    });
    // Emission days are the 7 UTC days from the launch day: it ends at the midnight after the last one.
    const firstDay = Date.parse(`${coin?.emissionStartAt?.slice(0, 10)}T00:00:00.000Z`);
    expect(Date.parse(coin?.emissionEndAt ?? '') - firstDay).toBe(7 * 24 * HOUR);
    expect((await getUser(alice.arcId))?.stats.gameCoinsLaunched).toBe(1);
    // The coin is linked to its game for the token lookups of /games.
    const mint = final.job.gtokenAddress ?? '';
    const byTokens = await invoke<{ data: { games: GameView[] } }>(batchByTokenIdsHandler, {
      method: 'POST',
      path: '/games/batch/token-ids',
      body: { tokenIds: [mint] },
    });
    expect(byTokens.body.data.games.map((g) => g.id)).toEqual([game.id]);
    const byToken = await invoke<{ data: GameView[] }>(gamesByTokenHandler, {
      method: 'GET',
      path: `/games/token-id/${mint}/full`,
      pathParameters: { tokenId: mint },
    });
    expect(byToken.body.data.map((g) => g.tokens?.gameCoin?.gtokenAddress)).toEqual([mint]);
    const again = await launch(alice.token, { gameId: game.id, emissionDays: 30 });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('ACTIVE_GAME_COIN');
  });

  it('answers complete-launch idempotently for the launched coin, to its launcher only', async () => {
    const mint = final.job.gtokenAddress ?? '';
    const first = await completeLaunch(alice.token, mint);
    expect(first.status, first.text).toBe(200);
    expect(first.body.data).toMatchObject({
      alreadyCompleted: true,
      jobId,
      gameId: game.id,
      gtokenAddress: mint,
      bundleTx: final.job.bundleTx,
      coin: { gtokenAddress: mint, status: 'active', emissionDays: 7 },
    });
    const second = await completeLaunch(alice.token, mint);
    expect(second.status).toBe(200);
    expect(second.body.data).toEqual(first.body.data);
    // Only the launch's own user may complete it.
    const bob = await newLauncher();
    const stranger = await completeLaunch(bob.token, mint);
    expect(stranger.status).toBe(403);
    expect(stranger.body.error.code).toBe('FORBIDDEN');
    expect((await getUser(alice.arcId))?.stats.gameCoinsLaunched).toBe(1);
  });
});

describe('launch without an initial buy, with a custom symbol', () => {
  it('completes with bundleTx = the supply transaction; the symbol is then taken platform-wide', async () => {
    const carol = await newLauncher(SOL / 10n);
    const game = await registerGame(carol);
    const symbol = `Z${randomUUID().replace(/-/g, '').slice(0, 7).toUpperCase()}`;
    const res = await launch(carol.token, {
      gameId: game.id,
      emissionDays: 30,
      gameCoinSymbol: ` ${symbol.toLowerCase()} `,
    });
    expect(res.status, res.text).toBe(200);
    const { job } = await pollJob(res.body.data.jobId);
    expect(job.status, job.error).toBe('completed');
    const mint = await chain.getMint(job.gtokenAddress ?? '');
    expect(mint?.metadata?.symbol).toBe(symbol);
    // Without a buy, bundleTx is the transaction that minted the supply and revoked the authorities.
    const logs = (await chain.getTransactionLogs(job.bundleTx ?? '')).join('\n');
    expect(logs).toContain('MintToChecked');
    expect(logs).toContain('SetAuthority');
    expect(await taskProgress(job.jobId)).toEqual([10, 50, 80, 100]);

    const dave = await newLauncher(SOL / 10n);
    const other = await registerGame(dave);
    const taken = await launch(dave.token, { gameId: other.id, emissionDays: 7, gameCoinSymbol: symbol });
    expect(taken.status).toBe(400);
    expect(taken.body.error.code).toBe('VALIDATION_ERROR');
    expect(taken.body.error.details).toEqual([{ path: 'gameCoinSymbol', message: 'is already taken' }]);
  }, 30_000);
});

describe('two concurrent launches for one game', () => {
  it('create exactly one job; both callers get its jobId', async () => {
    const erin = await newLauncher(SOL / 10n);
    const game = await registerGame(erin);
    const [a, b] = await Promise.all([
      launch(erin.token, { gameId: game.id, emissionDays: 7 }),
      launch(erin.token, { gameId: game.id, emissionDays: 7 }),
    ]);
    expect(a.status, a.text).toBe(200);
    expect(b.status, b.text).toBe(200);
    expect(a.body.data.jobId).toBe(b.body.data.jobId);
    expect([a.body.data.alreadyInProgress, b.body.data.alreadyInProgress].sort()).toEqual([false, true]);
    // A third call while it runs gets the same job; after it, the coin is active.
    const third = await launch(erin.token, { gameId: game.id, emissionDays: 30 });
    if (third.status === 200) expect(third.body.data).toMatchObject({ jobId: a.body.data.jobId });
    else expect(third.body.error.code).toBe('ACTIVE_GAME_COIN');
    const { job } = await pollJob(a.body.data.jobId);
    expect(job.status, job.error).toBe('completed');
    expect((await getUser(erin.arcId))?.stats.gameCoinsLaunched).toBe(1);
  }, 30_000);
});

describe('POST /token-launcher/launch rules (SPEC §4.1)', () => {
  let owner: Launcher;
  let game: GameView;

  beforeAll(async () => {
    owner = await newLauncher();
    game = await registerGame(owner);
  });

  it('needs an identity-provider token', async () => {
    const none = await launch(undefined, { gameId: game.id, emissionDays: 7 });
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('UNAUTHORIZED');
    const bad = await launch('not-a-jwt', { gameId: game.id, emissionDays: 7 });
    expect(bad.status).toBe(401);
  });

  it('rejects emissionDays other than 7 or 30, listing the allowed values', async () => {
    for (const emissionDays of [14, 0, 7.5]) {
      const res = await launch(owner.token, { gameId: game.id, emissionDays });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.message).toContain('7, 30');
      expect(res.body.error.details).toEqual([{ path: 'emissionDays', message: 'must be 7 or 30' }]);
    }
    const missing = await launch(owner.token, { gameId: game.id });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details.map((d) => d.path)).toContain('emissionDays');
  });

  it('rejects malformed buyAmount and gameCoinSymbol', async () => {
    for (const buyAmount of ['abc', '-5', '1.5', 100]) {
      const res = await launch(owner.token, { gameId: game.id, emissionDays: 7, buyAmount });
      expect(res.status, String(buyAmount)).toBe(400);
      expect(res.body.error.details[0]?.path).toBe('buyAmount');
    }
    const tiny = await launch(owner.token, { gameId: game.id, emissionDays: 7, buyAmount: '1' });
    expect(tiny.status).toBe(400);
    expect(tiny.body.error.message).toContain('too small');
    for (const gameCoinSymbol of ['X', 'WAY-TOO-LONG-SYMBOL', 'AB$']) {
      const res = await launch(owner.token, { gameId: game.id, emissionDays: 7, gameCoinSymbol });
      expect(res.status, gameCoinSymbol).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.details[0]?.path).toBe('gameCoinSymbol');
    }
  });

  it('answers 404 for an unknown game', async () => {
    const res = await launch(owner.token, { gameId: randomUUID(), emissionDays: 7 });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
  });

  it('requires 0.07 SOL plus buyAmount in the embedded wallet', async () => {
    const poor = await launch(owner.token, { gameId: game.id, emissionDays: 7 });
    expect(poor.status).toBe(400);
    expect(poor.body.error.code).toBe('INSUFFICIENT_BALANCE');
    expect(poor.body.error.message).toContain('0.07 SOL');
    const frank = await newLauncher(69_999_999n);
    const frankGame = await registerGame(frank);
    const short = await launch(frank.token, { gameId: frankGame.id, emissionDays: 7 });
    expect(short.body.error?.code).toBe('INSUFFICIENT_BALANCE');
    await chain.airdrop(frank.wallet, 30_000_001n); // 0.1 SOL now: enough alone, not with a 0.05 SOL buy
    const withBuy = await launch(frank.token, {
      gameId: frankGame.id,
      emissionDays: 7,
      buyAmount: '50000000',
    });
    expect(withBuy.status).toBe(400);
    expect(withBuy.body.error.code).toBe('INSUFFICIENT_BALANCE');
    expect(withBuy.body.error.message).toContain('0.12 SOL');
  });

  it('refuses while the game’s coin is active', async () => {
    const other = await registerGame(owner);
    await setCoin(other.id, { emissionEndAt: new Date(Date.now() + HOUR).toISOString() });
    const res = await launch(owner.token, { gameId: other.id, emissionDays: 7 });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('ACTIVE_GAME_COIN');
  });

  it('keeps the 48-hour grace period for the verified owner (the creator of an unclaimed game): 47:59 vs 48:01', async () => {
    const stranger = await newLauncher();
    const verifiedOwner = await newLauncher();
    const graceGame = await registerGame(owner);
    await setOwner(graceGame.id, verifiedOwner.arcId);
    const unclaimed = await registerGame(owner);
    // An ended coin (its last emission day settled `ms` ago: emissionEndAt is then when it ended).
    const endedAgo = (ms: number) =>
      Promise.all(
        [graceGame, unclaimed].map((g) =>
          setCoin(g.id, { status: 'ended', emissionEndAt: new Date(Date.now() - ms).toISOString() }),
        ),
      );
    // The callers below hold no SOL: INSUFFICIENT_BALANCE proves the grace rule let them through.
    await endedAgo(48 * HOUR - 60_000);
    const strangerEarly = await launch(stranger.token, { gameId: graceGame.id, emissionDays: 7 });
    expect(strangerEarly.status).toBe(403);
    expect(strangerEarly.body.error.code).toBe('GRACE_PERIOD_RESTRICTED');
    // The domain's verified owner holds the right, not the creator whose listing it proved.
    const ownerEarly = await launch(verifiedOwner.token, { gameId: graceGame.id, emissionDays: 7 });
    expect(ownerEarly.body.error.code).toBe('INSUFFICIENT_BALANCE');
    const creatorEarly = await launch(owner.token, { gameId: graceGame.id, emissionDays: 7 });
    expect(creatorEarly.status).toBe(403);
    expect(creatorEarly.body.error.code).toBe('GRACE_PERIOD_RESTRICTED');
    // Nobody proved the other game's domain: its creator holds the right.
    const unclaimedCreator = await launch(owner.token, { gameId: unclaimed.id, emissionDays: 7 });
    expect(unclaimedCreator.body.error.code).toBe('INSUFFICIENT_BALANCE');
    await endedAgo(48 * HOUR + 60_000);
    const strangerLate = await launch(stranger.token, { gameId: graceGame.id, emissionDays: 7 });
    expect(strangerLate.status).toBe(400);
    expect(strangerLate.body.error.code).toBe('INSUFFICIENT_BALANCE');
  });
});

describe('GET /token-launcher/launch/{jobId} and POST /token-launcher/complete-launch failures', () => {
  it('answers 404 for an unknown job and 400 for a malformed id', async () => {
    const unknown = await getLaunchJob(randomUUID());
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
    const malformed = await getLaunchJob('nope');
    expect(malformed.status).toBe(400);
  });

  it('refuses to complete a mint no launch created, and needs a token', async () => {
    const gina = await newLauncher();
    const random = Keypair.generate().publicKey.toBase58();
    const res = await completeLaunch(gina.token, random);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.message).toContain('not a game coin launched by Arcadia');
    // A real mint on chain that is not a game coin: wrapped SOL's mint.
    const wsol = await completeLaunch(gina.token, 'So11111111111111111111111111111111111111112');
    expect(wsol.status).toBe(400);
    const anonymous = await completeLaunch(undefined, random);
    expect(anonymous.status).toBe(401);
    const malformed = await completeLaunch(gina.token, 'not-base58!');
    expect(malformed.status).toBe(400);
  });
});
