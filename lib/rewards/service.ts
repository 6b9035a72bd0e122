// Multiplier and rewards-pool use cases (SPEC §4.6, docs/rewards.md).
import { randomUUID } from 'node:crypto';
import { isConditionFailure } from '../adapters/dynamodb.js';
import type { WalletLoader, WalletSigner } from '../adapters/wallet-signer.js';
import { type Chain, ChainError, type ChainReader } from '../chain/index.js';
import type { AuthContext } from '../core/auth.js';
import { AppError, errors } from '../core/errors.js';
import { logger } from '../core/logger.js';
import { effectiveSplit, getGame, requireGame, saveGame } from '../games/index.js';
import { rewardsKeys } from './keys.js';
import {
  DISTRIBUTION,
  PURCHASE_FEE_RESERVE,
  type Purchase,
  type Slot,
  TIERS,
  type Tier,
  tierMultiplier,
} from './model.js';
import type { PriceSource } from './price.js';
import { usdOf } from './pricing.js';
import { type DayBoard, gameFor, quote, round2 } from './quotes.js';
import * as repo from './repository.js';
import { blockhashExpired, buildPurchaseTransfer, newVault } from './vault.js';

/** Side effects of the rewards use cases. */
export interface RewardsDeps {
  chain: Pick<Chain, 'getBalance' | 'sendAndConfirm' | 'confirm' | 'getSignatureStatus' | 'getBlockHeight'>;
  signer: WalletSigner;
  loadWallet: WalletLoader;
  price: PriceSource;
  /** The day's board, for the quote (the play domain's). */
  board: DayBoard;
  now: () => Date;
  /** Budget for sending and confirming a transfer within one request (ms). Default 20 000. */
  confirmTimeoutMs?: number;
}

/** The pool read: the vault's balance and the price, nothing that signs. */
export interface PoolDeps {
  chain: Pick<ChainReader, 'getBalance'>;
  price: RewardsDeps['price'];
}

export type { QuoteDeps } from './quotes.js';

/** A purchase without a recorded signature for this long was never sent and will not be (its sender died). */
const UNSENT_GRACE_MS = 60_000;
const GAME_SYNC_ATTEMPTS = 5;

const conflict = (message: string) => new AppError('CONFLICT', message);

export interface PurchaseInput {
  gameId: string;
  tier: Tier;
  durationSeconds: number;
  idempotencyKey: string;
  maxLamports?: bigint | undefined;
}

/** A purchase as the API shows it. */
const purchaseView = (p: Purchase, replayed: boolean) => ({
  purchaseId: p.purchaseId,
  status: p.status === 'completed' ? ('completed' as const) : ('pending' as const),
  gameId: p.gameId,
  tier: p.tier,
  multiplier: tierMultiplier(p.tier),
  durationSeconds: p.durationSeconds,
  lamports: p.lamports,
  usd: p.usd,
  solUsdPrice: p.solUsdPrice,
  fromWallet: p.walletAddress,
  vaultAddress: p.vaultAddress,
  signature: p.signature ?? null,
  startsAt: p.startsAt ?? null,
  expiresAt: p.endsAt ?? null,
  replayed,
});
export type PurchaseView = ReturnType<typeof purchaseView>;

const activeConflict = (slot: Slot) =>
  conflict(
    `A ${slot.tier ?? ''} multiplier is active in this game until ${String(slot.endsAt)}: one multiplier per ` +
      'player and game; buy the next one after it expires',
  );

const failedError = (p: Purchase) =>
  /insufficient (funds|lamports)/i.test(p.failureReason ?? '')
    ? new AppError('INSUFFICIENT_BALANCE', `The transfer failed for lack of funds: ${p.failureReason ?? ''}`)
    : conflict(
        `This purchase failed (${p.failureReason ?? 'unknown reason'}); nothing was transferred. Use a new idempotencyKey to buy again`,
      );

const assertBalance = async (deps: RewardsDeps, address: string, lamports: bigint) => {
  const balance = await deps.chain.getBalance(address);
  const required = lamports + PURCHASE_FEE_RESERVE;
  if (balance < required) {
    throw new AppError(
      'INSUFFICIENT_BALANCE',
      `Your embedded wallet ${address} holds ${balance} lamports; this purchase needs ${required} ` +
        `(price ${lamports} + fee reserve ${PURCHASE_FEE_RESERVE})`,
      [{ path: 'wallet', message: `balance ${balance} < required ${required}` }],
    );
  }
};

/** The game's pool, creating its custodial vault on first use. */
const ensurePool = async (gameId: string, now: string) =>
  (await repo.getPool(gameId)) ??
  repo.createPool({
    gameId,
    custodial: true,
    ...(await newVault()),
    totalInflowLamports: '0',
    totalAllocatedLamports: '0',
    purchases: 0,
    createdAt: now,
  });

/**
 * Keep the game's listing figures current from its pool (absolute values, so re-running is harmless):
 * totalRewardsPoolValueUsd = (inflows − allocations) at the current SOL price; estimatedDailyRewardsUsd =
 * that / payoutHorizonDays. Written through saveGame (optimistic on version) so the listing indexes follow.
 */
export const syncGameFigures = async (gameId: string, deps: Pick<RewardsDeps, 'price'>) => {
  for (let attempt = 0; attempt < GAME_SYNC_ATTEMPTS; attempt++) {
    // The game first, then the pool: a save that succeeds saw every activation before its game read.
    const game = await getGame(gameId);
    const pool = game ? await repo.getPool(gameId) : undefined;
    if (!game || !pool) return;
    const value = usdOf(
      BigInt(pool.totalInflowLamports) - BigInt(pool.totalAllocatedLamports),
      await deps.price.solUsd(),
    );
    const daily = round2(value / DISTRIBUTION.payoutHorizonDays);
    if (game.totalRewardsPoolValueUsd === value && game.estimatedDailyRewardsUsd === daily) return;
    try {
      await saveGame(
        {
          ...game,
          version: game.version + 1,
          totalRewardsPoolValueUsd: value,
          estimatedDailyRewardsUsd: daily,
        },
        game,
      );
      return;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  logger.warn('game reward figures not synced; the next purchase syncs them', { gameId });
};

type Fate = { kind: 'landed'; signature: string } | { kind: 'dead'; reason: string } | { kind: 'inflight' };

/** Where a pending purchase's transfer stands, without waiting. */
const settle = async (p: Purchase, deps: RewardsDeps): Promise<Fate> => {
  if (!p.signature) {
    return deps.now().getTime() - Date.parse(p.updatedAt) > UNSENT_GRACE_MS
      ? { kind: 'dead', reason: 'never sent' }
      : { kind: 'inflight' };
  }
  const state = await deps.chain.getSignatureStatus(p.signature);
  if (state.status === 'failed')
    return { kind: 'dead', reason: `transfer failed on chain: ${JSON.stringify(state.err)}` };
  if (state.status === 'confirmed' || state.status === 'finalized')
    return { kind: 'landed', signature: p.signature };
  if (state.status === 'unknown' && (await blockhashExpired(deps.chain, p.lastValidBlockHeight ?? 0)))
    return { kind: 'dead', reason: 'transfer expired without landing' };
  return { kind: 'inflight' };
};

/** Activate a purchase whose transfer is confirmed, then sync the game's figures. */
const finish = async (p: Purchase, signature: string, deps: RewardsDeps, replayed: boolean) => {
  const at = deps.now();
  const window = {
    startsAt: at.toISOString(),
    endsAt: new Date(at.getTime() + p.durationSeconds * 1000).toISOString(),
  };
  let done: Purchase | undefined;
  if (await repo.activate(p, signature, window, at.toISOString())) {
    done = { ...p, status: 'completed', signature, ...window, completedAt: window.startsAt };
  } else {
    done = await repo.getPurchase(p.arcId, p.idempotencyKey);
    if (done?.status !== 'completed') {
      // Only possible if the slot was taken over although this transfer landed: needs an operator.
      logger.error('confirmed purchase could not be activated', { purchaseId: p.purchaseId, signature });
      throw new Error(`Purchase ${p.purchaseId} is paid but could not be activated`);
    }
  }
  await syncGameFigures(p.gameId, deps);
  return purchaseView(done, replayed);
};

/** Sign (wallet signer, the player paying the fee), record the signature before sending, send and confirm. */
const transferOnce = (
  p: Purchase,
  prior: string | undefined,
  deps: RewardsDeps,
  onSigned: (s: string) => void,
) =>
  deps.chain.sendAndConfirm(
    buildPurchaseTransfer({
      from: p.walletAddress,
      to: p.vaultAddress,
      lamports: BigInt(p.lamports),
      purchaseId: p.purchaseId,
    }),
    {
      cosign: (unsigned) => deps.signer.signTransaction(p.arcId, unsigned),
      timeoutMs: deps.confirmTimeoutMs ?? 20_000,
      onSent: async (sent) => {
        if (!(await repo.recordSignature(p, prior, sent, deps.now().toISOString())))
          throw conflict('Another request is completing this purchase; retry with the same idempotencyKey');
        onSigned(sent.signature);
      },
    },
  );

/**
 * What a failed send means: an expired blockhash can be retried (it never landed); a timeout after sending
 * leaves the purchase pending (it may still land); a rejected or failed transfer fails the purchase.
 */
const afterSendError = async (
  error: unknown,
  p: Purchase,
  seen: { signature: string | undefined; sentNow: boolean },
  deps: RewardsDeps,
  replayed: boolean,
): Promise<PurchaseView | 'retry'> => {
  if (!(error instanceof ChainError)) throw error;
  if (error.code === 'BLOCKHASH_EXPIRED') return 'retry';
  if (seen.sentNow && (error.code === 'CONFIRM_TIMEOUT' || error.code === 'RPC_UNAVAILABLE'))
    return purchaseView({ ...p, signature: seen.signature }, replayed);
  if (error.code === 'SIMULATION_FAILED' || error.code === 'TRANSACTION_FAILED') {
    const reason = `${error.message} ${error.logs.join(' ')}`.trim();
    await repo.markFailed(p, seen.signature, reason, deps.now().toISOString());
    if (/insufficient (funds|lamports)/i.test(reason))
      throw new AppError('INSUFFICIENT_BALANCE', 'The wallet cannot pay the transfer and its fee');
  }
  throw error;
};

/** Send the transfer (a fresh blockhash once if the first expires unlanded), then activate. */
const send = async (
  p: Purchase,
  previous: string | undefined,
  deps: RewardsDeps,
  replayed: boolean,
): Promise<PurchaseView> => {
  let signature = previous;
  for (let attempt = 0; attempt < 2; attempt++) {
    const prior = signature;
    try {
      const confirmed = await transferOnce(p, prior, deps, (s) => {
        signature = s;
      });
      return await finish({ ...p, signature: confirmed }, confirmed, deps, replayed);
    } catch (error) {
      const outcome = await afterSendError(
        error,
        p,
        { signature, sentNow: signature !== prior },
        deps,
        replayed,
      );
      if (outcome !== 'retry') return outcome;
    }
  }
  // Two blockhashes expired unlanded: still pending; a retry with the same key sends again.
  return purchaseView({ ...p, signature }, replayed);
};

/**
 * The slot is held by another purchase: settle that one first. Its transfer landed → activate it (and this
 * purchase conflicts); it provably cannot land → mark it failed and return its id to take the slot over.
 */
const resolveHolder = async (
  gameId: string,
  arcId: string,
  deps: RewardsDeps,
): Promise<string | undefined> => {
  const slot = await repo.getSlot(gameId, arcId);
  if (!slot) return undefined;
  if (slot.state === 'active') {
    if (Date.parse(String(slot.endsAt)) > deps.now().getTime()) throw activeConflict(slot);
    return undefined;
  }
  const holder = await repo.getPurchaseByKey(slot.purchaseKey);
  if (!holder || holder.status === 'failed') return slot.purchaseId;
  const inProgress = conflict('Another multiplier purchase for this game is in progress; retry shortly');
  if (holder.status !== 'pending') throw inProgress;
  const fate = await settle(holder, deps);
  if (fate.kind === 'landed') {
    await finish(holder, fate.signature, deps, false);
    throw activeConflict((await repo.getSlot(gameId, arcId)) ?? slot);
  }
  if (
    fate.kind === 'dead' &&
    (await repo.markFailed(holder, holder.signature, fate.reason, deps.now().toISOString()))
  )
    return slot.purchaseId;
  throw inProgress;
};

/**
 * A pending purchase whose transfer was sent: wait for it while it may still land and activate it; undefined
 * when it provably never will (its blockhash expired unlanded), so sending again cannot charge twice.
 */
const confirmSent = async (
  existing: Purchase & { signature: string },
  deps: RewardsDeps,
): Promise<PurchaseView | undefined> => {
  const sent = { signature: existing.signature, lastValidBlockHeight: existing.lastValidBlockHeight ?? 0 };
  const state = await deps.chain.getSignatureStatus(sent.signature);
  if (state.status === 'failed') {
    const reason = `transfer failed on chain: ${JSON.stringify(state.err)}`;
    await repo.markFailed(existing, sent.signature, reason, deps.now().toISOString());
    throw failedError({ ...existing, failureReason: reason });
  }
  if (state.status === 'unknown' && (await blockhashExpired(deps.chain, sent.lastValidBlockHeight)))
    return undefined;
  try {
    const signature = await deps.chain.confirm(sent, { timeoutMs: deps.confirmTimeoutMs ?? 20_000 });
    return await finish(existing, signature, deps, true);
  } catch (error) {
    if (!(error instanceof ChainError)) throw error;
    if (error.code === 'CONFIRM_TIMEOUT' || error.code === 'RPC_UNAVAILABLE')
      return purchaseView(existing, true);
    if (error.code === 'BLOCKHASH_EXPIRED') return undefined;
    throw error;
  }
};

/** A retry with a known idempotency key: replay, resume confirming, or resend if nothing can land. */
const resume = async (existing: Purchase, input: PurchaseInput, deps: RewardsDeps): Promise<PurchaseView> => {
  const same =
    existing.gameId === input.gameId &&
    existing.tier === input.tier &&
    existing.durationSeconds === input.durationSeconds;
  if (!same) throw conflict('This idempotencyKey was already used for a different purchase');
  if (existing.status === 'completed') {
    await syncGameFigures(existing.gameId, deps);
    return purchaseView(existing, true);
  }
  if (existing.status === 'failed') throw failedError(existing);
  const { signature } = existing;
  if (signature) {
    const settled = await confirmSent({ ...existing, signature }, deps);
    if (settled) return settled;
  }
  // Never sent, or sent and provably never landing: nothing was charged, so send (again).
  await assertBalance(deps, existing.walletAddress, BigInt(existing.lamports));
  return send(existing, signature, deps, true);
};

/**
 * POST /multiplier/purchase: quote re-checked (maxLamports), one multiplier per player and game, balance
 * checked, intent persisted and the slot reserved before anything is sent, transfer from the player's wallet
 * to the pool vault confirmed by polling, multiplier activated, game figures synced. Idempotent per key.
 */
export const purchaseMultiplier = async (
  auth: AuthContext,
  input: PurchaseInput,
  deps: RewardsDeps,
): Promise<PurchaseView> => {
  const game = await gameFor(auth, input.gameId);
  const existing = await repo.getPurchase(auth.userId, input.idempotencyKey);
  if (existing) return resume(existing, input, deps);

  const q = await quote(game, input.tier, input.durationSeconds, deps);
  if (input.maxLamports !== undefined && q.lamports > input.maxLamports) {
    throw errors.validation(`The price is now ${q.lamports} lamports, above your maxLamports`, [
      { path: 'maxLamports', message: `price ${q.lamports} > ${input.maxLamports}` },
    ]);
  }
  const slot = await repo.getSlot(game.id, auth.userId);
  if (slot?.state === 'active' && Date.parse(String(slot.endsAt)) > q.at.getTime())
    throw activeConflict(slot);
  const wallet = await deps.loadWallet(auth.userId);
  if (!wallet) throw new AppError('INSUFFICIENT_BALANCE', 'You have no embedded wallet to pay from');
  await assertBalance(deps, wallet.address, q.lamports);
  const now = q.at.toISOString();
  const pool = await ensurePool(game.id, now);
  const key = rewardsKeys.purchase(auth.userId, input.idempotencyKey);
  const purchase: Purchase = {
    ...key,
    purchaseId: randomUUID(),
    idempotencyKey: input.idempotencyKey,
    arcId: auth.userId,
    gameId: game.id,
    tier: input.tier,
    multiplierBps: TIERS[input.tier],
    durationSeconds: input.durationSeconds,
    lamports: q.lamports.toString(),
    usd: q.usd,
    solUsdPrice: q.solUsd,
    competitors: q.competitors,
    walletAddress: wallet.address,
    vaultAddress: pool.vaultAddress,
    status: 'pending',
    createdAt: now,
    updatedAt: now,
  };
  let outcome = await repo.reserve(purchase, now);
  if (outcome === 'slotTaken') {
    const dead = await resolveHolder(game.id, auth.userId, deps);
    outcome = await repo.reserve(purchase, now, dead);
  }
  if (outcome === 'keyTaken') {
    const concurrent = await repo.getPurchase(auth.userId, input.idempotencyKey);
    if (concurrent) return resume(concurrent, input, deps);
  }
  if (outcome !== 'reserved')
    throw conflict('Another multiplier purchase for this game is in progress; retry shortly');
  return send(purchase, undefined, deps, false);
};

/** GET /rewards/game-rewards-pool/{gameId}. */
export const gameRewardsPool = async (gameId: string, deps: PoolDeps) => {
  const game = await requireGame(gameId);
  const [pool, solUsd, inflows] = await Promise.all([
    repo.getPool(game.id),
    deps.price.solUsd(),
    repo.recentInflows(game.id, 20),
  ]);
  const balance = pool ? await deps.chain.getBalance(pool.vaultAddress) : 0n;
  const totalInflow = BigInt(pool?.totalInflowLamports ?? '0');
  return {
    gameId: game.id,
    custodial: true as const,
    vaultAddress: pool?.vaultAddress ?? null,
    balanceLamports: balance.toString(),
    balanceUsd: usdOf(balance, solUsd),
    solUsdPrice: solUsd,
    priceSource: deps.price.name,
    totalInflowLamports: totalInflow.toString(),
    totalAllocatedLamports: pool?.totalAllocatedLamports ?? '0',
    purchases: pool?.purchases ?? 0,
    totalRewardsPoolValueUsd: game.totalRewardsPoolValueUsd,
    totalRewardsAllocatedUsd: game.totalRewardsAllocatedUsd,
    estimatedDailyRewardsUsd: game.estimatedDailyRewardsUsd,
    distribution: {
      payoutHorizonDays: DISTRIBUTION.payoutHorizonDays,
      creatorShareBps: DISTRIBUTION.creatorShareBps,
      playerShareBps: DISTRIBUTION.playerShareBps,
      creatorSplit: effectiveSplit(game),
      playerShareByRankBps: [...DISTRIBUTION.playerShareByRankBps],
    },
    recentInflows: inflows.map((item) => ({
      purchaseId: String(item.purchaseId),
      tier: item.tier as Tier,
      multiplier: tierMultiplier(item.tier as Tier),
      durationSeconds: Number(item.durationSeconds),
      lamports: String(item.lamports),
      usd: Number(item.usd),
      fromWallet: String(item.fromWallet),
      signature: String(item.signature),
      at: String(item.at),
    })),
  };
};
