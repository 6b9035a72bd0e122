// Purchases that did not finish within their request, settled from the chain without charging twice: a retry
// with the same idempotency key (resume) and a slot still held by an earlier purchase (resolveHolder).
import { ChainError, signatureFate } from '../chain/index.js';
import { AppError } from '../core/errors.js';
import { syncGameFigures } from './figures.js';
import type { Purchase, Slot } from './model.js';
import {
  assertBalance,
  conflict,
  finish,
  type PurchaseInput,
  type PurchaseView,
  purchaseView,
  type RewardsDeps,
  send,
} from './purchase-transfer.js';
import * as repo from './repository.js';

/** A purchase without a recorded signature for this long was never sent and will not be (its sender died). */
const UNSENT_GRACE_MS = 60_000;

export const activeConflict = (slot: Slot) =>
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

type Fate = { kind: 'landed'; signature: string } | { kind: 'dead'; reason: string } | { kind: 'inflight' };

/** Where a pending purchase's transfer stands, without waiting. */
const settle = async (p: Purchase, deps: RewardsDeps): Promise<Fate> => {
  if (!p.signature) {
    return deps.now().getTime() - Date.parse(p.updatedAt) > UNSENT_GRACE_MS
      ? { kind: 'dead', reason: 'never sent' }
      : { kind: 'inflight' };
  }
  const fate = await signatureFate(deps.chain, {
    signature: p.signature,
    lastValidBlockHeight: p.lastValidBlockHeight ?? 0,
  });
  if (fate.kind === 'failed')
    return { kind: 'dead', reason: `transfer failed on chain: ${JSON.stringify(fate.err)}` };
  if (fate.kind === 'landed') return { kind: 'landed', signature: p.signature };
  if (fate.kind === 'expired') return { kind: 'dead', reason: 'transfer expired without landing' };
  return { kind: 'inflight' };
};

/**
 * The slot is held by another purchase: settle that one first. Its transfer landed → activate it (and this
 * purchase conflicts); it provably cannot land → mark it failed and return its id to take the slot over.
 */
export const resolveHolder = async (
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
  const fate = await signatureFate(deps.chain, sent);
  if (fate.kind === 'failed') {
    const reason = `transfer failed on chain: ${JSON.stringify(fate.err)}`;
    await repo.markFailed(existing, sent.signature, reason, deps.now().toISOString());
    throw failedError({ ...existing, failureReason: reason });
  }
  if (fate.kind === 'expired') return undefined;
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
export const resume = async (
  existing: Purchase,
  input: PurchaseInput,
  deps: RewardsDeps,
): Promise<PurchaseView> => {
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
