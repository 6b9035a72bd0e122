// Paying for a multiplier: the purchase's input, side effects and view, the wallet's balance check, the transfer
// to the pool vault (sent by ./inbound.ts, its signature recorded before sending) and the activation once confirmed.
import { logger } from '../../core/logger.js';
import { syncGameFigures } from '../figures.js';
import { type InboundDeps, type InboundOps, sendInbound, transferFailed } from '../inbound.js';
import { type Purchase, type Tier, tierMultiplier } from '../model.js';
import type { PriceSource } from '../price.js';
import * as repo from '../repository.js';
import { purchaseMemo } from '../vault.js';
import type { DayBoard } from './quotes.js';

export { assertBalance, conflict } from '../inbound.js';

/** Side effects of the rewards use cases. */
export interface RewardsDeps extends InboundDeps {
  price: PriceSource;
  /** The day's board, for the quote (the play domain's). */
  board: DayBoard;
}

export interface PurchaseInput {
  gameId: string;
  tier: Tier;
  durationSeconds: number;
  idempotencyKey: string;
  maxLamports?: bigint | undefined;
}

/** A purchase as the API shows it. */
export const purchaseView = (p: Purchase, replayed: boolean) => ({
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

/** Activate a purchase whose transfer is confirmed, then sync the game's figures. */
export const finish = async (p: Purchase, signature: string, deps: RewardsDeps, replayed: boolean) => {
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

/** How a purchase's transfer is recorded, finished and shown (./inbound.ts sends it). */
export const purchaseOps = (deps: RewardsDeps): InboundOps<Purchase, PurchaseView> => ({
  memo: (p) => purchaseMemo(p.purchaseId),
  recordSignature: (p, prior, sent) => repo.recordSignature(p, prior, sent, deps.now().toISOString()),
  finish: (p, signature, replayed) => finish(p, signature, deps, replayed),
  fail: (p, seen, reason) => repo.markFailed(p, seen, reason, deps.now().toISOString()),
  view: purchaseView,
  busy: 'Another request is completing this purchase; retry with the same idempotencyKey',
  failed: (reason) => failedError(reason),
});

/** A purchase that failed: for lack of funds, or otherwise (nothing was transferred either way). */
export const failedError = transferFailed('purchase', 'buy again');

/** Send the transfer (a fresh blockhash once if the first expires unlanded), then activate. */
export const send = (p: Purchase, previous: string | undefined, deps: RewardsDeps, replayed: boolean) =>
  sendInbound(p, previous, purchaseOps(deps), deps, replayed);
