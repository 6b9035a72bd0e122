// Multipliers and rewards pools against the local stack: the handlers in process, DynamoDB Local, and the local
// chain (SOLANA_RPC_URL) that executes the real System program. Players are IdP users whose embedded wallets are
// funded with the chain adapter's airdrop.
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as listGamesHandler } from '../../functions/games/list-games.js';
import { handler as sessionTokenHandler } from '../../functions/play/get-session-token.js';
import { handler as currentHandler } from '../../functions/rewards/get-current-multiplier.js';
import { handler as poolHandler } from '../../functions/rewards/get-game-rewards-pool.js';
import { handler as costHandler } from '../../functions/rewards/get-multiplier-cost.js';
import { handler as placementHandler } from '../../functions/rewards/get-multiplier-cost-for-placement.js';
import {
  handler as purchaseHandler,
  sideEffects as rewardsDeps,
} from '../../functions/rewards/purchase-multiplier.js';
import { dynamo } from '../../lib/adapters/dynamodb.js';
import { openCustodialKey } from '../../lib/adapters/vault-keys.js';
import { ChainError, makeChain } from '../../lib/chain/index.js';
import type { AuthContext } from '../../lib/core/auth.js';
import type { GameView } from '../../lib/games/contracts.js';
import { dayBoard } from '../../lib/play/index.js';
import { flushHash } from '../../lib/play/protocol/chain.js';
import { commit, flush, openSession } from '../../lib/play/protocol/state.js';
import { getItem, transact } from '../../lib/play/repository.js';
import { batchSavePoints } from '../../lib/play/saves/save.js';
import { rewardsKeys, rewardsTable } from '../../lib/rewards/keys.js';
import { PURCHASE_FEE_RESERVE, type Tier } from '../../lib/rewards/model.js';
import { fixedPrice } from '../../lib/rewards/price.js';
import { priceLamports, usdOf } from '../../lib/rewards/pricing.js';
import { purchaseMultiplier } from '../../lib/rewards/purchases/purchase.js';
import { costForPlacement } from '../../lib/rewards/purchases/quotes.js';
import type { RewardsDeps } from '../../lib/rewards/purchases/transfer.js';
import { localDirectory } from '../../lib/user/directory.js';
import { ensureUserForSubject } from '../../lib/user/service.js';
import { loadWallet } from '../../lib/user/wallet.js';
import { registerGame } from '../helpers/games.js';
import { invoke } from '../helpers/http.js';
import { idpToken } from '../helpers/idp.js';
import { createDeveloper, type Developer } from '../helpers/users.js';

const SOL = 1_000_000_000n;
const SIGNATURE_FEE = 5_000n;
const chain = makeChain({ rpcUrl: process.env.SOLANA_RPC_URL ?? '', pollMs: 50 });

interface Player {
  arcId: string;
  token: string;
  wallet: string;
  auth: AuthContext;
}

/** An IdP user (created as GET /user/me would) with its embedded wallet, funded when asked. */
const newPlayer = async (lamports = 0n): Promise<Player> => {
  const name = `rw-${randomUUID().slice(0, 8)}`;
  const arcId = await ensureUserForSubject(`did:local:${name}`);
  const token = await idpToken(name);
  const wallet = (await loadWallet(arcId))?.address;
  if (!wallet) throw new Error('expected an embedded wallet');
  if (lamports > 0n) await chain.airdrop(wallet, lamports);
  return { arcId, token, wallet, auth: { scheme: 'bearer', userId: arcId, subject: `did:local:${name}` } };
};

type ErrorBody = {
  error: { code: string; message: string; details: Array<{ path: string; message: string }> };
};
interface PurchaseData {
  purchaseId: string;
  status: 'completed' | 'pending';
  gameId: string;
  tier: Tier;
  multiplier: number;
  durationSeconds: number;
  lamports: string;
  usd: number;
  fromWallet: string;
  vaultAddress: string;
  signature: string | null;
  startsAt: string | null;
  expiresAt: string | null;
  replayed: boolean;
}
type PurchaseBody = { data: PurchaseData } & ErrorBody;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const buy = (token: string, body: Record<string, unknown>) =>
  invoke<PurchaseBody>(purchaseHandler, {
    method: 'POST',
    path: '/multiplier/purchase',
    headers: bearer(token),
    body,
  });

const purchaseBody = (gameId: string, tier: Tier = '2x', durationSeconds = 3_600) => ({
  gameId,
  tier,
  durationSeconds,
  idempotencyKey: randomUUID(),
});

const current = (headers: Record<string, string>, gameId: string) =>
  invoke<{
    data: {
      active: boolean;
      multiplier: { tier: Tier; multiplier: number; startsAt: string; expiresAt: string } | null;
    };
    error?: { code: string };
  }>(currentHandler, { method: 'GET', path: '/multiplier/current', headers, query: { gameId } });

const poolOf = (gameId: string) =>
  invoke<{
    data: {
      vaultAddress: string | null;
      custodial: true;
      balanceLamports: string;
      balanceUsd: number;
      totalInflowLamports: string;
      purchases: number;
      totalRewardsPoolValueUsd: number;
      estimatedDailyRewardsUsd: number;
      distribution: { creatorShareBps: number; playerShareBps: number; creatorSplit: Record<string, number> };
      recentInflows: Array<{ purchaseId: string; lamports: string; signature: string; fromWallet: string }>;
    };
  }>(poolHandler, {
    method: 'GET',
    path: `/rewards/game-rewards-pool/${gameId}`,
    pathParameters: { gameId },
  });

let dev: Developer;
let devAuth: AuthContext;
beforeAll(async () => {
  dev = await createDeveloper();
  devAuth = { scheme: 'hmac', userId: dev.arcId, apiKey: dev.apiKey };
});

describe('GET /multiplier/cost', () => {
  it('quotes lamports and USD from tier, duration and today’s competition (public)', async () => {
    const game = await registerGame(dev);
    const res = await invoke<{ data: Record<string, unknown> }>(costHandler, {
      method: 'GET',
      path: '/multiplier/cost',
      query: { gameId: game.id, tier: '3x', durationSeconds: '86400' },
    });
    expect(res.status).toBe(200);
    const lamports = priceLamports({ tier: '3x', durationSeconds: 86_400, competitors: 0 });
    expect(res.body.data).toMatchObject({
      gameId: game.id,
      tier: '3x',
      multiplier: 3,
      durationSeconds: 86_400,
      lamports: lamports.toString(),
      usd: usdOf(lamports, 150),
      solUsdPrice: 150,
      priceSource: 'coinbase',
      competitors: 0,
      feeReserveLamports: PURCHASE_FEE_RESERVE.toString(),
    });
    // Three players score today: the same multiplier costs more.
    await batchSavePoints(
      devAuth,
      {
        gameId: game.id,
        entries: ['a', 'b', 'c'].map((h) => ({ playerId: `x:c${h}${randomUUID().slice(0, 6)}`, points: 10 })),
      },
      { directory: localDirectory },
    );
    const busier = await invoke<{ data: { lamports: string; competitors: number } }>(costHandler, {
      method: 'GET',
      path: '/multiplier/cost',
      query: { gameId: game.id, tier: '3x', durationSeconds: '86400' },
    });
    expect(busier.body.data.competitors).toBe(3);
    expect(BigInt(busier.body.data.lamports)).toBe(
      priceLamports({ tier: '3x', durationSeconds: 86_400, competitors: 3 }),
    );
    expect(BigInt(busier.body.data.lamports)).toBeGreaterThan(lamports);
  });

  it('answers 400 for an unknown tier or duration and 404 for an unknown game', async () => {
    const game = await registerGame(dev);
    const q = (query: Record<string, string>) =>
      invoke<ErrorBody>(costHandler, { method: 'GET', path: '/multiplier/cost', query });
    expect((await q({ gameId: game.id, tier: '5x', durationSeconds: '3600' })).status).toBe(400);
    expect((await q({ gameId: game.id, tier: '2x', durationSeconds: '60' })).status).toBe(400);
    expect((await q({ gameId: randomUUID(), tier: '2x', durationSeconds: '3600' })).status).toBe(404);
  });
});

describe('GET /multiplier/cost-for-placement', () => {
  // A fixed clock (noon UTC) so "hours left today" and the day's board are deterministic.
  const at = new Date('2031-03-01T12:00:00.000Z');
  const quoteDeps = { price: fixedPrice(150), board: dayBoard, now: () => at };
  let game: GameView;
  let caller: Player;

  beforeAll(async () => {
    game = await registerGame(dev);
    caller = await newPlayer();
    const tag = randomUUID().slice(0, 6);
    await batchSavePoints(
      devAuth,
      {
        gameId: game.id,
        entries: [
          ...[1000, 800, 600, 400, 200].map((points, i) => ({ playerId: `x:p${i}${tag}`, points })),
          { playerId: caller.arcId, points: 100 },
        ],
      },
      { directory: localDirectory, now: () => at },
    );
  });

  const plan = (targetRank: number, pointsPerHour?: number) =>
    costForPlacement(caller.auth, { gameId: game.id, targetRank, period: 'daily', pointsPerHour }, quoteDeps);

  it('finds the cheapest tier and duration on a seeded leaderboard', async () => {
    // Rank 3 needs 601 (one more than the 600 now third). At 100 points/h with 12 h left: 1 h earns at most 300
    // (3x); 6 h at 1.5x earns 900 → 1000, the cheapest that gets there.
    const res = await plan(3, 100);
    expect(res).toMatchObject({
      day: '2031-03-01',
      currentPoints: 100,
      currentRank: null,
      neededPoints: 601,
      pointsGap: 501,
      assumedPointsPerHour: 100,
      rateSource: 'query',
      hoursLeftToday: 12,
      competitors: 6,
      reachable: true,
      alreadyThere: false,
      reason: null,
    });
    const lamports = priceLamports({ tier: '1.5x', durationSeconds: 21_600, competitors: 6 });
    expect(res.option).toEqual({
      tier: '1.5x',
      multiplier: 1.5,
      durationSeconds: 21_600,
      lamports: lamports.toString(),
      usd: usdOf(lamports, 150),
      projectedPoints: 1000,
    });
  });

  it('reports the rank already held, an unreachable rank and a missing earning rate', async () => {
    expect(await plan(6)).toMatchObject({
      alreadyThere: true,
      reachable: true,
      currentRank: 6,
      option: null,
      pointsGap: 0,
    });
    // Today's average: 100 points in 12 h ≈ 8.33/h; first place (1001) is out of reach even at 3x for the rest of the day.
    expect(await plan(1)).toMatchObject({
      reachable: false,
      reason: 'out_of_reach',
      rateSource: 'todayAverage',
      assumedPointsPerHour: 8.33,
      neededPoints: 1001,
    });
    const idle = await newPlayer();
    expect(
      await costForPlacement(idle.auth, { gameId: game.id, targetRank: 2, period: 'daily' }, quoteDeps),
    ).toMatchObject({ reachable: false, reason: 'no_earning_rate', currentPoints: 0, currentRank: null });
  });

  it('says when the daily cap makes the rank unreachable', async () => {
    const capped = await registerGame(dev, { maxCumulativePointsPerDay: 700 });
    const tag = randomUUID().slice(0, 6);
    await batchSavePoints(
      devAuth,
      { gameId: capped.id, entries: [0, 1, 2].map((i) => ({ playerId: `x:k${i}${tag}`, points: 700 })) },
      { directory: localDirectory, now: () => at },
    );
    const res = await costForPlacement(
      caller.auth,
      { gameId: capped.id, targetRank: 3, period: 'daily', pointsPerHour: 1000 },
      quoteDeps,
    );
    expect(res).toMatchObject({ reachable: false, reason: 'daily_cap', neededPoints: 701 });
  });

  it('answers over HTTP for a bearer caller and 401 without credentials', async () => {
    const empty = await registerGame(dev);
    const res = await invoke<{ data: { reachable: boolean; neededPoints: number } }>(placementHandler, {
      method: 'GET',
      path: '/multiplier/cost-for-placement',
      headers: bearer(caller.token),
      query: { gameId: empty.id, targetRank: '1', pointsPerHour: '100000' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ reachable: true, neededPoints: 1 });
    const anonymous = await invoke(placementHandler, {
      method: 'GET',
      path: '/multiplier/cost-for-placement',
      query: { gameId: empty.id, targetRank: '1' },
    });
    expect(anonymous.status).toBe(401);
  });
});

describe('POST /multiplier/purchase', () => {
  it('moves lamports from the player’s wallet into the custodial pool vault and activates the multiplier', async () => {
    const game = await registerGame(dev);
    const player = await newPlayer(SOL);
    const empty = await poolOf(game.id);
    expect(empty.body.data).toMatchObject({
      vaultAddress: null,
      balanceLamports: '0',
      purchases: 0,
      recentInflows: [],
    });

    const before = await chain.getBalance(player.wallet);
    const body = purchaseBody(game.id, '2x', 3_600);
    const started = Date.now();
    const res = await buy(player.token, body);
    const elapsed = Date.now() - started;
    expect(res.status, res.text).toBe(200);
    const price = priceLamports({ tier: '2x', durationSeconds: 3_600, competitors: 0 });
    const data = res.body.data;
    expect(data).toMatchObject({
      status: 'completed',
      gameId: game.id,
      tier: '2x',
      multiplier: 2,
      lamports: price.toString(),
      usd: usdOf(price, 150),
      fromWallet: player.wallet,
      replayed: false,
    });
    expect(Date.parse(data.expiresAt ?? '') - Date.parse(data.startsAt ?? '')).toBe(3_600_000);
    console.info(
      `purchase round trip (quote, balance, intent, transfer confirmed, activation): ${elapsed} ms`,
    );

    // On chain: the vault holds exactly the price; the wallet paid the price and one signature fee.
    expect(await chain.getBalance(data.vaultAddress)).toBe(price);
    expect(await chain.getBalance(player.wallet)).toBe(before - price - SIGNATURE_FEE);
    expect(await chain.getSignatureStatus(data.signature ?? '')).toMatchObject({ status: 'finalized' });
    const [onChain] = await chain.findSignatures(data.vaultAddress, 5);
    expect(onChain?.memo).toContain(`arcadia:multiplier:${data.purchaseId}`);

    // The vault is custodial: the platform holds its key, sealed on the pool record.
    const poolItem = (
      await dynamo().send(
        new GetCommand({ TableName: rewardsTable(), Key: rewardsKeys.pool(game.id), ConsistentRead: true }),
      )
    ).Item;
    const vault = await openCustodialKey('vault', data.vaultAddress, String(poolItem?.vaultSealedKey));
    expect(vault.address).toBe(data.vaultAddress);

    const active = await current(bearer(player.token), game.id);
    expect(active.status).toBe(200);
    expect(active.body.data).toMatchObject({
      active: true,
      multiplier: { tier: '2x', multiplier: 2, startsAt: data.startsAt, expiresAt: data.expiresAt },
    });

    const pool = await poolOf(game.id);
    expect(pool.status).toBe(200);
    expect(pool.body.data).toMatchObject({
      vaultAddress: data.vaultAddress,
      custodial: true,
      balanceLamports: price.toString(),
      balanceUsd: usdOf(price, 150),
      totalInflowLamports: price.toString(),
      purchases: 1,
      totalRewardsPoolValueUsd: usdOf(price, 150),
      // The next settlement's payout: 1/30 of the pool above the vault's rent-exempt reserve.
      estimatedDailyRewardsUsd: usdOf((price - 890_880n) / 30n, 150),
      distribution: { creatorShareBps: 2000, playerShareBps: 8000, creatorSplit: { [dev.arcId]: 10_000 } },
    });
    expect(pool.body.data.recentInflows).toEqual([
      expect.objectContaining({
        purchaseId: data.purchaseId,
        lamports: price.toString(),
        signature: data.signature,
        fromWallet: player.wallet,
      }),
    ]);

    // A second purchase while one is active: 409, nothing charged.
    const afterFirst = await chain.getBalance(player.wallet);
    const second = await buy(player.token, purchaseBody(game.id, '3x', 3_600));
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('CONFLICT');
    expect(await chain.getBalance(player.wallet)).toBe(afterFirst);

    // A retry with the same idempotency key replays the purchase and charges nothing more.
    const retry = await buy(player.token, body);
    expect(retry.status).toBe(200);
    expect(retry.body.data).toMatchObject({
      purchaseId: data.purchaseId,
      signature: data.signature,
      status: 'completed',
      replayed: true,
    });
    expect(await chain.getBalance(player.wallet)).toBe(afterFirst);
    expect(await chain.getBalance(data.vaultAddress)).toBe(price);

    // The same key for a different purchase is a conflict.
    const reused = await buy(player.token, { ...body, tier: '3x' });
    expect(reused.status).toBe(409);
  });

  it('answers 400 INSUFFICIENT_BALANCE below price + fee reserve, and succeeds at exactly that', async () => {
    const game = await registerGame(dev);
    const price = priceLamports({ tier: '1.5x', durationSeconds: 3_600, competitors: 0 });
    const broke = await newPlayer();
    const body = purchaseBody(game.id, '1.5x', 3_600);
    const none = await buy(broke.token, body);
    expect(none.status).toBe(400);
    expect(none.body.error.code).toBe('INSUFFICIENT_BALANCE');

    const short = await newPlayer(price + PURCHASE_FEE_RESERVE - 1n);
    const res = await buy(short.token, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INSUFFICIENT_BALANCE');
    expect(res.body.error.message).toContain(String(price + PURCHASE_FEE_RESERVE));
    expect(await chain.getBalance(short.wallet)).toBe(price + PURCHASE_FEE_RESERVE - 1n);

    // Nothing was stored: the same key works once the wallet is funded.
    await chain.airdrop(short.wallet, 1n);
    const ok = await buy(short.token, body);
    expect(ok.status, ok.text).toBe(200);
    expect(await chain.getBalance(short.wallet)).toBe(PURCHASE_FEE_RESERVE - SIGNATURE_FEE);
  });

  it('refuses a price above maxLamports (400) and answers 401 without credentials', async () => {
    const game = await registerGame(dev);
    const player = await newPlayer(SOL);
    const tooLow = await buy(player.token, { ...purchaseBody(game.id), maxLamports: '1000' });
    expect(tooLow.status).toBe(400);
    expect(tooLow.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [expect.objectContaining({ path: 'maxLamports' })],
    });
    const anonymous = await invoke(purchaseHandler, {
      method: 'POST',
      path: '/multiplier/purchase',
      body: purchaseBody(game.id),
    });
    expect(anonymous.status).toBe(401);
    const garbage = await invoke(purchaseHandler, {
      method: 'POST',
      path: '/multiplier/purchase',
      headers: { authorization: 'Bearer a.b.c' },
      body: purchaseBody(game.id),
    });
    expect(garbage.status).toBe(401);
    const noCurrent = await invoke(currentHandler, {
      method: 'GET',
      path: '/multiplier/current',
      query: { gameId: game.id },
    });
    expect(noCurrent.status).toBe(401);
    expect(await chain.getBalance(player.wallet)).toBe(SOL);
  });

  it('charges once when the confirmation is lost and the client retries with the same key', async () => {
    const game = await registerGame(dev);
    const player = await newPlayer(SOL);
    const real = rewardsDeps;
    // The transfer lands, but the request loses track of it (timeout) before activating.
    const lost: RewardsDeps = {
      ...real,
      chain: {
        ...real.chain,
        sendAndConfirm: async (plan, options) => {
          await real.chain.sendAndConfirm(plan, options);
          throw new ChainError('CONFIRM_TIMEOUT', 'simulated: confirmation not seen in time');
        },
      },
    };
    const body = purchaseBody(game.id, '1.5x', 21_600);
    const price = priceLamports({ tier: '1.5x', durationSeconds: 21_600, competitors: 0 });
    const pending = await purchaseMultiplier(player.auth, body, lost);
    expect(pending).toMatchObject({ status: 'pending', startsAt: null });
    expect(pending.signature).toBeTruthy();
    expect(await chain.getBalance(player.wallet)).toBe(SOL - price - SIGNATURE_FEE);

    const retry = await buy(player.token, body);
    expect(retry.status).toBe(200);
    expect(retry.body.data).toMatchObject({
      status: 'completed',
      signature: pending.signature,
      replayed: true,
    });
    expect(await chain.getBalance(player.wallet)).toBe(SOL - price - SIGNATURE_FEE);
    expect(await chain.getBalance(pending.vaultAddress)).toBe(price);
  });

  it('sends on retry when the first attempt never reached the chain, still charging once', async () => {
    const game = await registerGame(dev);
    const player = await newPlayer(SOL);
    const real = rewardsDeps;
    const down: RewardsDeps = {
      ...real,
      chain: {
        ...real.chain,
        sendAndConfirm: async () => {
          throw new ChainError('RPC_UNAVAILABLE', 'simulated: RPC down before sending');
        },
      },
    };
    const body = purchaseBody(game.id, '2x', 3_600);
    await expect(purchaseMultiplier(player.auth, body, down)).rejects.toThrow(/RPC down/);
    expect(await chain.getBalance(player.wallet)).toBe(SOL);
    const retry = await buy(player.token, body);
    expect(retry.status).toBe(200);
    const price = priceLamports({ tier: '2x', durationSeconds: 3_600, competitors: 0 });
    expect(await chain.getBalance(player.wallet)).toBe(SOL - price - SIGNATURE_FEE);
  });

  it('lets exactly one of two concurrent purchases (different keys) through', async () => {
    const game = await registerGame(dev);
    const player = await newPlayer(SOL);
    const results = await Promise.all([
      buy(player.token, purchaseBody(game.id)),
      buy(player.token, purchaseBody(game.id, '3x')),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const winner = results.find((r) => r.status === 200)?.body.data;
    expect(await chain.getBalance(player.wallet)).toBe(SOL - BigInt(winner?.lamports ?? 0) - SIGNATURE_FEE);
    expect((await poolOf(game.id)).body.data.purchases).toBe(1);
  });
});

describe('points saved while a multiplier is active', () => {
  let game: GameView;
  let player: Player;
  let expiresAt: Date;

  beforeAll(async () => {
    game = await registerGame(dev);
    player = await newPlayer(SOL);
    const res = await buy(player.token, purchaseBody(game.id, '2x', 3_600));
    if (res.status !== 200) throw new Error(res.text);
    expiresAt = new Date(res.body.data.expiresAt ?? '');
  });

  const save = (arcId: string, points: number, options: { key?: string; now?: Date; gameId?: string } = {}) =>
    batchSavePoints(
      devAuth,
      {
        gameId: options.gameId ?? game.id,
        entries: [{ playerId: arcId, points, idempotencyKey: options.key }],
      },
      { directory: localDirectory, ...(options.now ? { now: () => options.now as Date } : {}) },
    );

  it('multiplies a batch save once (a replay does not multiply again), and not after expiry', async () => {
    const key = `k-${randomUUID()}`;
    const first = await save(player.arcId, 100, { key });
    expect(first.results[0]).toMatchObject({ requested: 100, accepted: 200, status: 'accepted' });
    const replay = await save(player.arcId, 100, { key });
    expect(replay.results[0]).toMatchObject({ accepted: 200, status: 'duplicate' });
    const today = new Date().toISOString().slice(0, 10);
    const total = await getItem({ pk: `TOTAL#${game.id}#${player.arcId}`, sk: `DAY#${today}` });
    expect(Number(total?.points)).toBe(200);

    const later = await save(player.arcId, 100, { now: new Date(expiresAt.getTime() + 1_000) });
    expect(later.results[0]).toMatchObject({ requested: 100, accepted: 100, status: 'accepted' });
  });

  it('multiplies an SDK flush once (commit moves it unchanged), and not after expiry', async () => {
    const start = new Date();
    const session = await openSession(player.auth, game.id, start);
    const auth: AuthContext = {
      scheme: 'session',
      userId: player.arcId,
      sessionId: session.sessionId,
      gameId: game.id,
    };
    const link = (seq: number, delta: number, prevHash: string) => {
      const l = { seq, delta, clientTime: Date.now(), prevHash };
      return { ...l, hash: flushHash(session.sessionId, l) };
    };
    const one = link(1, 50, session.chainSeed);
    const flushed = await flush(auth, one, new Date(start.getTime() + 2_000));
    expect(flushed).toMatchObject({ accepted: 100, pendingPoints: 100, reason: null });
    const committed = await commit(
      auth,
      { seq: 1, head: one.hash, total: 50 },
      new Date(start.getTime() + 3_000),
    );
    expect(committed).toEqual({ status: 'committed', committedPoints: 100, clipped: false });

    const later = await openSession(player.auth, game.id, start);
    const laterAuth: AuthContext = { ...auth, sessionId: later.sessionId };
    const l1 = { seq: 1, delta: 50, clientTime: Date.now(), prevHash: later.chainSeed };
    const expired = await flush(
      laterAuth,
      { ...l1, hash: flushHash(later.sessionId, l1) },
      new Date(expiresAt.getTime() + 1_000),
    );
    expect(expired).toMatchObject({ accepted: 50, pendingPoints: 50 });
  });

  it('ignores an already-expired multiplier and multiplies before the caps', async () => {
    const other = await newPlayer();
    const capped = await registerGame(dev, { maxScorePerSession: 150 });
    const now = Date.now();
    const writeSlot = (gameId: string, multiplierBps: number, startsAt: number, endsAt: number) =>
      transact([
        {
          Put: {
            TableName: rewardsTable(),
            Item: {
              ...rewardsKeys.slot(gameId, other.arcId),
              state: 'active',
              purchaseId: randomUUID(),
              purchaseKey: 'MPURCHASE#test',
              tier: '3x',
              multiplierBps,
              startsAt: new Date(startsAt).toISOString(),
              endsAt: new Date(endsAt).toISOString(),
            },
          },
        },
      ]);
    await writeSlot(game.id, 30_000, now - 7_200_000, now - 3_600_000);
    expect((await save(other.arcId, 100)).results[0]).toMatchObject({ accepted: 100 });
    const session = await openSession(other.auth, game.id);
    const l1 = { seq: 1, delta: 40, clientTime: Date.now(), prevHash: session.chainSeed };
    const sessionAuth: AuthContext = {
      scheme: 'session',
      userId: other.arcId,
      sessionId: session.sessionId,
      gameId: game.id,
    };
    expect(await flush(sessionAuth, { ...l1, hash: flushHash(session.sessionId, l1) })).toMatchObject({
      accepted: 40,
    });
    expect((await current(bearer(other.token), game.id)).body.data).toEqual(
      expect.objectContaining({ active: false, multiplier: null }),
    );

    // 3x active: 100 → 300, clipped to the session cap of 150.
    await writeSlot(capped.id, 30_000, now - 1_000, now + 3_600_000);
    expect((await save(other.arcId, 100, { gameId: capped.id })).results[0]).toMatchObject({
      requested: 100,
      accepted: 150,
      status: 'clipped',
      reason: 'max_score_per_session',
    });
  });

  it('reads the current multiplier with a session token of the game, and refuses one of another game', async () => {
    const session = await invoke<{ data: { sessionToken: string } }>(sessionTokenHandler, {
      method: 'GET',
      path: '/play/session-token',
      headers: bearer(player.token),
      query: { gameId: game.id },
    });
    expect(session.status).toBe(200);
    const headers = bearer(session.body.data.sessionToken);
    const res = await current(headers, game.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ active: true, multiplier: { tier: '2x' } });
    // One check, one status for a token of another game (lib/http/handler.ts authorizeGame).
    const elsewhere = await current(headers, (await registerGame(dev)).id);
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.error?.code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('GET /games sorted by totalRewardsPoolValueUsd', () => {
  it('follows purchases', async () => {
    const tag = `rw${randomUUID().slice(0, 8)}`;
    const alpha = await registerGame(dev, { name: `Alpha ${tag}` });
    const beta = await registerGame(dev, { name: `Beta ${tag}` });
    const order = async () => {
      const res = await invoke<{
        data: Array<{ id: string; totalRewardsPoolValueUsd: number; estimatedDailyRewardsUsd: number }>;
      }>(listGamesHandler, {
        method: 'GET',
        path: '/games',
        query: { query: tag, sortBy: 'totalRewardsPoolValueUsd', sort: 'desc' },
      });
      expect(res.status).toBe(200);
      return res.body.data;
    };
    // Both at 0: ties go to the newer game first.
    expect((await order()).map((g) => g.id)).toEqual([beta.id, alpha.id]);

    const small = await buy((await newPlayer(SOL)).token, purchaseBody(alpha.id, '1.5x', 3_600));
    expect(small.status).toBe(200);
    expect((await order()).map((g) => g.id)).toEqual([alpha.id, beta.id]);

    const big = await buy((await newPlayer(SOL)).token, purchaseBody(beta.id, '3x', 86_400));
    expect(big.status).toBe(200);
    const games = await order();
    expect(games.map((g) => g.id)).toEqual([beta.id, alpha.id]);
    const betaValue = usdOf(BigInt(big.body.data.lamports), 150);
    expect(games[0]).toMatchObject({
      totalRewardsPoolValueUsd: betaValue,
      estimatedDailyRewardsUsd: usdOf((BigInt(big.body.data.lamports) - 890_880n) / 30n, 150),
    });
    expect(games[1]?.totalRewardsPoolValueUsd).toBe(usdOf(BigInt(small.body.data.lamports), 150));

    // Two more purchases on alpha overtake beta.
    for (const tier of ['3x', '3x'] as const) {
      const res = await buy((await newPlayer(SOL)).token, purchaseBody(alpha.id, tier, 86_400));
      expect(res.status).toBe(200);
    }
    expect((await order()).map((g) => g.id)).toEqual([alpha.id, beta.id]);
  });
});
