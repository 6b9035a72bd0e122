// Purchases that did not finish within their request, settled from the chain without charging twice: a retry
// with the same idempotency key (resume) and a slot still held by an earlier purchase (resolveHolder).
import { signatureFate } from '../../chain/index.js';
import { syncGameFigures } from '../figures.js';
import { resumeInbound } from '../inbound.js';
import type { Purchase, Slot } from '../model.js';
import * as repo from '../repository.js';
import {
  conflict,
  failedError,
  finish,
  type PurchaseInput,
  type PurchaseView,
  purchaseOps,
  purchaseView,
  type RewardsDeps,
} from './transfer.js';

/** A purchase without a recorded signature for this long was never sent and will not be (its sender died). */
const UNSENT_GRACE_MS = 60_000;

export const activeConflict = (slot: Slot) =>
  conflict(
    `A ${slot.tier ?? ''} multiplier is active in this game until ${String(slot.endsAt)}: one multiplier per ` +
      'player and game; buy the next one after it expires',
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
  if (existing.status === 'failed') throw failedError(existing.failureReason);
  return resumeInbound(existing, purchaseOps(deps), deps);
};
