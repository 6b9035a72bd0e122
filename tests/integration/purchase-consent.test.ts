// A game's code holds its players' session tokens: with them it may buy multipliers only within the daily allowance
// each player granted to that game with the player's own identity-provider token. Over HTTP against serverless
// offline and the local chain (the System program moves the lamports), plus the fault paths in process.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sideEffects as rewardsDeps } from '../../functions/rewards/purchase-multiplier.js';
import { ChainError, makeChain } from '../../lib/chain/index.js';
import type { AuthContext } from '../../lib/core/auth.js';
import { signRequest } from '../../lib/core/hmac-signing.js';
import { utcDay } from '../../lib/core/time.js';
import { spentIn } from '../../lib/rewards/allowances/repository.js';
import { rewardsKeys } from '../../lib/rewards/keys.js';
import { type Purchase, TIERS, type Tier } from '../../lib/rewards/model.js';
import { priceLamports } from '../../lib/rewards/pricing.js';
import { purchaseMultiplier } from '../../lib/rewards/purchases/purchase.js';
import { getPurchase, reserve } from '../../lib/rewards/repository.js';
import { ensureUserForSubject } from '../../lib/user/service.js';
import { loadWallet } from '../../lib/user/wallet.js';
import { registerGame } from '../helpers/games.js';
import { apiBaseUrl } from '../helpers/http.js';
import { idpToken, providerWallet } from '../helpers/idp.js';
import { createDeveloper } from '../helpers/users.js';

const SOL = 1_000_000_000n;
const SIGNATURE_FEE = 5_000n;
const chain = makeChain({ rpcUrl: process.env.SOLANA_RPC_URL ?? '', pollMs: 50 });

const base = apiBaseUrl;

interface Answer<T> {
  status: number;
  body: T & { error?: { code: string; message: string; details: Array<{ path: string; message: string }> } };
}

/** One request to serverless offline. */
const api = async <T = Record<string, unknown>>(
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown; query?: Record<string, string> } = {},
): Promise<Answer<T>> => {
  const url = new URL(path, base());
  for (const [k, v] of Object.entries(options.query ?? {})) url.searchParams.set(k, v);
  const res = await fetch(url, {
    method,
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : {} };
};

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

interface Player {
  name: string;
  arcId: string;
  token: string;
  wallet: string;
}

/** An identity-provider user with its embedded wallet (delegated), funded. */
const newPlayer = async (lamports = SOL): Promise<Player> => {
  const name = `consent-${randomUUID().slice(0, 8)}`;
  const arcId = await ensureUserForSubject(`did:local:${name}`);
  const token = await idpToken(name);
  const wallet = (await loadWallet(arcId))?.address;
  if (!wallet) throw new Error('expected an embedded wallet');
  if (lamports > 0n) await chain.airdrop(wallet, lamports);
  return { name, arcId, token, wallet };
};

/** A play session token of the player for the game: what the game's own JavaScript holds. */
const sessionToken = async (player: Player, gameId: string): Promise<string> => {
  const res = await api<{ data: { sessionToken: string } }>('GET', '/play/session-token', {
    headers: bearer(player.token),
    query: { gameId, idempotencyKey: randomUUID() },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.sessionToken;
};

interface PurchaseData {
  purchaseId: string;
  status: 'completed' | 'pending';
  lamports: string;
}

const buy = (token: string, gameId: string, tier: Tier = '2x', durationSeconds = 3_600) =>
  api<{ data: PurchaseData }>('POST', '/multiplier/purchase', {
    headers: bearer(token),
    body: { gameId, tier, durationSeconds, idempotencyKey: randomUUID() },
  });

const priceOf = (tier: Tier, durationSeconds = 3_600) =>
  priceLamports({ tier, durationSeconds, competitors: 0 });

interface AllowanceData {
  gameId: string;
  lamportsPerDay: string;
  day: string;
  spentTodayLamports: string;
  remainingTodayLamports: string;
}

const grant = (token: string, gameId: string, lamportsPerDay: bigint | string) =>
  api<{ data: AllowanceData }>('PUT', `/rewards/allowances/${gameId}`, {
    headers: bearer(token),
    body: { lamportsPerDay: String(lamportsPerDay) },
  });

const revoke = (token: string, gameId: string) =>
  api<{ data: { gameId: string; revoked: boolean } }>('DELETE', `/rewards/allowances/${gameId}`, {
    headers: bearer(token),
  });

const allowancesOf = async (token: string) => {
  const res = await api<{ data: { allowances: AllowanceData[] } }>('GET', '/rewards/me', {
    headers: bearer(token),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.allowances;
};

const poolOf = async (gameId: string) =>
  (
    await api<{ data: { vaultAddress: string | null; purchases: number; totalInflowLamports: string } }>(
      'GET',
      `/rewards/game-rewards-pool/${gameId}`,
    )
  ).body.data;

const dev = await createDeveloper();

describe('purchases with a session token need the player’s allowance', () => {
  it('refuses a session-token purchase without an allowance and charges nothing', async () => {
    const game = await registerGame(dev);
    const player = await newPlayer();
    const session = await sessionToken(player, game.id);
    const before = await chain.getBalance(player.wallet);
    const signedBefore = (await providerWallet(player.wallet)).signed;

    // The game's JavaScript buys the most expensive multiplier with the token it holds.
    const res = await buy(session, game.id, '3x', 86_400);
    expect(res.status, JSON.stringify(res.body)).toBe(403);
    expect(res.body.error?.code).toBe('PURCHASE_ALLOWANCE_REQUIRED');
    expect(res.body.error?.message).toContain(`/rewards/allowances/${game.id}`);

    expect(await chain.getBalance(player.wallet)).toBe(before);
    expect((await providerWallet(player.wallet)).signed).toBe(signedBefore);
    expect(await poolOf(game.id)).toMatchObject({
      vaultAddress: null,
      purchases: 0,
      totalInflowLamports: '0',
    });
    const current = await api<{ data: { active: boolean } }>('GET', '/multiplier/current', {
      headers: bearer(session),
      query: { gameId: game.id },
    });
    expect(current.body.data.active).toBe(false);
  }, 60_000);

  it('buys with the player’s identity-provider token without any allowance', async () => {
    const game = await registerGame(dev);
    const player = await newPlayer();
    const before = await chain.getBalance(player.wallet);
    const res = await buy(player.token, game.id, '2x');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'completed', lamports: priceOf('2x').toString() });
    expect(await chain.getBalance(player.wallet)).toBe(before - priceOf('2x') - SIGNATURE_FEE);
    // A bearer purchase spends no allowance.
    expect(await allowancesOf(player.token)).toEqual([]);
  }, 60_000);

  it('buys within the granted allowance, refuses beyond it naming what remains, and shows it in GET /rewards/me', async () => {
    const game = await registerGame(dev);
    const player = await newPlayer();
    const price = priceOf('2x');
    const limit = price + 1_000n;
    const granted = await grant(player.token, game.id, limit);
    expect(granted.status, JSON.stringify(granted.body)).toBe(200);
    const today = utcDay(new Date());
    expect(granted.body.data).toMatchObject({
      gameId: game.id,
      lamportsPerDay: limit.toString(),
      day: today,
      spentTodayLamports: '0',
      remainingTodayLamports: limit.toString(),
    });

    const session = await sessionToken(player, game.id);
    const before = await chain.getBalance(player.wallet);
    const first = await buy(session, game.id, '2x');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.data).toMatchObject({ status: 'completed', lamports: price.toString() });
    const afterFirst = await chain.getBalance(player.wallet);
    expect(afterFirst).toBe(before - price - SIGNATURE_FEE);

    // 1 000 lamports left: the cheapest multiplier (2 000 000) is beyond it.
    const second = await buy(session, game.id, '1.5x');
    expect(second.status, JSON.stringify(second.body)).toBe(403);
    expect(second.body.error?.code).toBe('PURCHASE_ALLOWANCE_EXCEEDED');
    expect(second.body.error?.message).toContain(`costs ${priceOf('1.5x')} lamports; 1000 of your ${limit}`);
    expect(await chain.getBalance(player.wallet)).toBe(afterFirst);
    expect((await poolOf(game.id)).purchases).toBe(1);

    expect(await allowancesOf(player.token)).toEqual([
      expect.objectContaining({
        gameId: game.id,
        lamportsPerDay: limit.toString(),
        day: today,
        spentTodayLamports: price.toString(),
        remainingTodayLamports: '1000',
      }),
    ]);
    // The session token sees them too (GET /rewards/me accepts it); lowering keeps what was spent.
    const lowered = await grant(player.token, game.id, 1n);
    expect(lowered.body.data).toMatchObject({
      spentTodayLamports: price.toString(),
      remainingTodayLamports: '0',
    });
  }, 90_000);

  it('refuses an allowance smaller than the price, and a purchase above maxLamports, charging nothing', async () => {
    const game = await registerGame(dev);
    const player = await newPlayer();
    await grant(player.token, game.id, priceOf('3x') - 1n);
    const session = await sessionToken(player, game.id);
    const before = await chain.getBalance(player.wallet);
    const res = await buy(session, game.id, '3x');
    expect(res.status).toBe(403);
    expect(res.body.error?.code).toBe('PURCHASE_ALLOWANCE_EXCEEDED');
    expect(res.body.error?.details).toEqual([
      { path: 'allowance', message: `remaining ${priceOf('3x') - 1n} < price ${priceOf('3x')}` },
    ]);
    const capped = await api('POST', '/multiplier/purchase', {
      headers: bearer(session),
      body: {
        gameId: game.id,
        tier: '1.5x',
        durationSeconds: 3_600,
        idempotencyKey: randomUUID(),
        maxLamports: '1000',
      },
    });
    expect(capped.status).toBe(400);
    expect(capped.body.error?.details.map((d) => d.path)).toContain('maxLamports');
    expect(await chain.getBalance(player.wallet)).toBe(before);
    expect((await poolOf(game.id)).purchases).toBe(0);
  }, 60_000);

  it('refuses session purchases again once the player revokes the allowance', async () => {
    const game = await registerGame(dev);
    const player = await newPlayer();
    await grant(player.token, game.id, SOL / 10n);
    const revoked = await revoke(player.token, game.id);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toEqual({ gameId: game.id, revoked: true });
    expect((await revoke(player.token, game.id)).body.data).toEqual({ gameId: game.id, revoked: false });
    expect(await allowancesOf(player.token)).toEqual([]);

    const session = await sessionToken(player, game.id);
    const before = await chain.getBalance(player.wallet);
    const res = await buy(session, game.id, '1.5x');
    expect(res.status).toBe(403);
    expect(res.body.error?.code).toBe('PURCHASE_ALLOWANCE_REQUIRED');
    expect(await chain.getBalance(player.wallet)).toBe(before);
  }, 60_000);

  it('lets concurrent session purchases spend no more than the allowance', async () => {
    const game = await registerGame(dev);
    const player = await newPlayer();
    const price = priceOf('2x');
    await grant(player.token, game.id, price);
    const session = await sessionToken(player, game.id);
    const before = await chain.getBalance(player.wallet);

    const answers = await Promise.all(Array.from({ length: 6 }, () => buy(session, game.id, '2x')));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200))
      expect(['CONFLICT', 'PURCHASE_ALLOWANCE_EXCEEDED']).toContain(a.body.error?.code);
    expect(await chain.getBalance(player.wallet)).toBe(before - price - SIGNATURE_FEE);
    expect(await spentIn(player.arcId, game.id, utcDay(new Date()))).toBe(Number(price));
    expect((await poolOf(game.id)).purchases).toBe(1);
  }, 90_000);

  it('holds the allowance in the reservation’s own condition, whatever the request read before', async () => {
    const game = await registerGame(dev);
    const player = await newPlayer();
    const price = priceOf('1.5x');
    await grant(player.token, game.id, price);
    const session = await sessionToken(player, game.id);
    const first = await buy(session, game.id, '1.5x');
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const day = utcDay(new Date());

    // A second reservation built from a stale read (as if its check ran before the first one reserved), and
    // even allowed to take the slot over: the transaction refuses it on the day's spending.
    const stale: Purchase = {
      ...rewardsKeys.purchase(player.arcId, randomUUID()),
      purchaseId: randomUUID(),
      idempotencyKey: randomUUID(),
      arcId: player.arcId,
      gameId: game.id,
      tier: '1.5x',
      multiplierBps: TIERS['1.5x'],
      durationSeconds: 3_600,
      lamports: price.toString(),
      usd: 0.3,
      solUsdPrice: 150,
      competitors: 0,
      walletAddress: player.wallet,
      vaultAddress: player.wallet,
      status: 'pending',
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
      allowanceDay: day,
    };
    const outcome = await reserve(stale, new Date().toISOString(), {
      takeOver: first.body.data.purchaseId,
      allowance: { lamportsPerDay: Number(price), day, lamports: Number(price) },
    });
    expect(outcome).toBe('allowance');
    expect(await getPurchase(player.arcId, stale.idempotencyKey)).toBeUndefined();
    expect(await spentIn(player.arcId, game.id, day)).toBe(Number(price));
    // A changed allowance (raised meanwhile) fails the same condition: the request read another limit.
    await grant(player.token, game.id, price * 3n);
    const changed = await reserve(stale, new Date().toISOString(), {
      takeOver: first.body.data.purchaseId,
      allowance: { lamportsPerDay: Number(price), day, lamports: 1 },
    });
    expect(changed).toBe('allowance');
  }, 60_000);

  it('gives the price back to the allowance when the purchase fails without charging', async () => {
    const game = await registerGame(dev);
    const player = await newPlayer();
    const price = priceOf('2x');
    await grant(player.token, game.id, price);
    const auth: AuthContext = { scheme: 'session', userId: player.arcId, sessionId: 's', gameId: game.id };
    const before = await chain.getBalance(player.wallet);
    const rejecting = {
      ...rewardsDeps,
      chain: {
        ...rewardsDeps.chain,
        sendAndConfirm: async () => {
          throw new ChainError('SIMULATION_FAILED', 'simulated: the transfer is rejected');
        },
      },
    };
    const input = {
      gameId: game.id,
      tier: '2x' as const,
      durationSeconds: 3_600,
      idempotencyKey: randomUUID(),
    };
    await expect(purchaseMultiplier(auth, input, rejecting)).rejects.toThrow(/rejected/);
    expect((await getPurchase(player.arcId, input.idempotencyKey))?.status).toBe('failed');
    expect(await spentIn(player.arcId, game.id, utcDay(new Date()))).toBe(0);
    expect(await chain.getBalance(player.wallet)).toBe(before);

    // The whole allowance is there again for the next purchase.
    const retry = await purchaseMultiplier(auth, { ...input, idempotencyKey: randomUUID() }, rewardsDeps);
    expect(retry.status).toBe('completed');
    expect(await spentIn(player.arcId, game.id, utcDay(new Date()))).toBe(Number(price));
    expect(await chain.getBalance(player.wallet)).toBe(before - price - SIGNATURE_FEE);
  }, 60_000);
});

describe('granting and revoking allowances', () => {
  it('answers 401 without the player’s identity-provider token (none, invalid, HMAC) and 403 to a session token', async () => {
    const game = await registerGame(dev);
    const player = await newPlayer(0n);
    const session = await sessionToken(player, game.id);
    const path = `/rewards/allowances/${game.id}`;
    const body = { lamportsPerDay: '1000000' };
    const ts = Date.now();
    const hmac = {
      authorization: `HMAC-SHA256 apiKey=${dev.apiKey} signature=${signRequest({ secretKey: dev.secretKey, method: 'PUT', path, timestamp: ts })} timestamp=${ts}`,
      'x-auth-provider': 'hmac',
    };
    const attempts: Array<[string, Record<string, string>]> = [
      ['none', {}],
      ['invalid', bearer('not.a.token')],
      ['session', bearer(session)],
      ['hmac', hmac],
    ];
    for (const [name, headers] of attempts) {
      // A game-scoped token is recognised and refused for its scope (docs/connect.md); the rest are unauthenticated.
      const [status, code] = name === 'session' ? [403, 'INSUFFICIENT_SCOPE'] : [401, 'UNAUTHORIZED'];
      const put = await api('PUT', path, { headers, body });
      expect(put.status, `${name}: ${JSON.stringify(put.body)}`).toBe(status);
      expect(put.body.error?.code).toBe(code);
      const del = await api('DELETE', path, { headers });
      expect(del.status, `${name}`).toBe(status);
    }
    expect(await allowancesOf(player.token)).toEqual([]);
    // A purchase with a garbage token is 401 as well.
    expect((await buy('garbage', game.id)).status).toBe(401);
  }, 60_000);

  it('validates the amount and the game', async () => {
    const game = await registerGame(dev);
    const player = await newPlayer(0n);
    for (const amount of ['0', '-5', '1.5', 'abc', '01', '1000000000001', '99999999999999999999']) {
      const res = await grant(player.token, game.id, amount);
      expect(res.status, amount).toBe(400);
      expect(res.body.error?.code).toBe('VALIDATION_ERROR');
    }
    expect((await grant(player.token, game.id, 1_000n * SOL)).status).toBe(200);
    const unknown = await grant(player.token, randomUUID(), 1_000n);
    expect(unknown.status).toBe(404);
    expect(
      (
        await api('PUT', '/rewards/allowances/not-a-uuid', {
          headers: bearer(player.token),
          body: { lamportsPerDay: '5' },
        })
      ).status,
    ).toBe(400);
  }, 60_000);
});
