// POST /multiplier/purchase (docs/rewards.md, "Purchase"): a new purchase quoted, checked, reserved and paid
// (transfer.ts); a known idempotency key or a slot still held is settled first (recovery.ts). With a session
// token, the price is reserved against the player's daily allowance to the game (allowances/allowance.ts).
import { randomUUID } from 'node:crypto';
import { type AuthContext, isGameScoped } from '../../core/auth.js';
import { AppError, errors } from '../../core/errors.js';
import { requireDelegated } from '../../user/index.js';
import { allowanceHold, allowanceRefusal } from '../allowances/allowance.js';
import { rewardsKeys } from '../keys.js';
import { type Purchase, TIERS } from '../model.js';
import { ensurePool } from '../pool-repository.js';
import * as repo from '../repository.js';
import { gameFor, quote } from './quotes.js';
import { activeConflict, resolveHolder, resume } from './recovery.js';
import {
  assertBalance,
  conflict,
  type PurchaseInput,
  type PurchaseView,
  type RewardsDeps,
  send,
} from './transfer.js';

const PRICE_RETRY_SECONDS = 30;
const priceUnavailable = () =>
  new AppError(
    'PRICE_UNAVAILABLE',
    'No SOL price is available right now (every price feed failed); nothing was charged, retry shortly',
    [],
    { 'retry-after': String(PRICE_RETRY_SECONDS) },
  );

/**
 * POST /multiplier/purchase: quote re-checked (maxLamports), a session token's purchase within the player's
 * allowance to the game, one multiplier per player and game, balance checked, intent persisted and the slot (and
 * allowance) reserved before anything is sent, transfer from the player's wallet to the pool vault confirmed by
 * polling, multiplier activated, game figures synced. Idempotent per key.
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
  // A purchase records its USD value: without any SOL price it waits (retryable) rather than record a made-up one.
  if (!q.price || q.usd === null) throw priceUnavailable();
  if (input.maxLamports !== undefined && q.lamports > input.maxLamports) {
    throw errors.validation(`The price is now ${q.lamports} lamports, above your maxLamports`, [
      { path: 'maxLamports', message: `price ${q.lamports} > ${input.maxLamports}` },
    ]);
  }
  // A game-scoped token (a grant's, or a session token) is the game's as much as the player's: it spends only
  // what the player allowed the game (the grant's spending limit).
  const hold = isGameScoped(auth) ? await allowanceHold(auth.userId, game.id, q.lamports, q.at) : undefined;
  const slot = await repo.getSlot(game.id, auth.userId);
  if (slot?.state === 'active' && Date.parse(String(slot.endsAt)) > q.at.getTime())
    throw activeConflict(slot);
  // Fresh from the identity provider: no embedded wallet is 400, delegation off 403, before anything is sent.
  const wallet = requireDelegated(await deps.loadWallet(auth.userId, { fresh: true }));
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
    solUsdPrice: q.price.usd,
    competitors: q.competitors,
    walletAddress: wallet.address,
    vaultAddress: pool.vaultAddress,
    status: 'pending',
    createdAt: now,
    updatedAt: now,
    ...(hold ? { allowanceDay: hold.day } : {}),
  };
  let outcome = await repo.reserve(purchase, now, { allowance: hold });
  if (outcome === 'slotTaken') {
    const dead = await resolveHolder(game.id, auth.userId, deps);
    outcome = await repo.reserve(purchase, now, { takeOver: dead, allowance: hold });
  }
  if (outcome === 'allowance' && hold)
    throw await allowanceRefusal(auth.userId, game.id, q.lamports, hold.day);
  if (outcome === 'keyTaken') {
    const concurrent = await repo.getPurchase(auth.userId, input.idempotencyKey);
    if (concurrent) return resume(concurrent, input, deps);
  }
  if (outcome !== 'reserved')
    throw conflict('Another multiplier purchase for this game is in progress; retry shortly');
  return send(purchase, undefined, deps, false);
};
