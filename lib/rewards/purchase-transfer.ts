// Paying for a multiplier: the purchase's input, side effects and view, the wallet's balance check, the transfer
// to the pool vault (its signature recorded before sending) and the activation once it is confirmed.
import type { WalletLoader, WalletSigner } from '../adapters/wallet-signer.js';
import { type Chain, ChainError } from '../chain/index.js';
import { AppError } from '../core/errors.js';
import { logger } from '../core/logger.js';
import { syncGameFigures } from './figures.js';
import { PURCHASE_FEE_RESERVE, PURCHASE_MAX_FEE, type Purchase, type Tier, tierMultiplier } from './model.js';
import type { PriceSource } from './price.js';
import type { DayBoard } from './quotes.js';
import * as repo from './repository.js';
import { buildPurchaseTransfer } from './vault.js';

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

export const conflict = (message: string) => new AppError('CONFLICT', message);

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

export const assertBalance = async (deps: RewardsDeps, address: string, lamports: bigint) => {
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
      maxFeeLamports: PURCHASE_MAX_FEE,
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
export const send = async (
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
