// Claiming for a signed-in user's embedded wallet: the wallet is the identity provider's, so the user cannot sign
// the built transaction with a key of their own; the platform has the provider sign it as the wallet (delegated
// signing, as for launches and purchases) and sends it. External wallets keep build-transactions and sign there.
import type { WalletLoader, WalletSigner } from '../adapters/wallet-signer.js';
import { type Chain, ChainError } from '../chain/index.js';
import type { AuthContext } from '../core/auth.js';
import { AppError } from '../core/errors.js';
import { requireDelegated } from '../user/index.js';
import { type ClaimDeps, prepareClaim } from './claims.js';

export interface SubmitClaimDeps extends ClaimDeps {
  chain: ClaimDeps['chain'] & Pick<Chain, 'sendAndConfirm'>;
  signer: WalletSigner;
  loadWallet: WalletLoader;
  /** Default 20 000. */
  confirmTimeoutMs?: number;
}

/**
 * POST /token-launcher/exercise-claim/submit. The wallet and its delegation are read fresh from the provider and
 * checked before anything is built or sent (400 NO_EMBEDDED_WALLET, 403 WALLET_DELEGATION_REQUIRED). A claim
 * that expired unlanded is built again once; one still unconfirmed at the deadline answers `pending` (its
 * receipt number keeps a later claim from paying twice).
 */
export const submitClaim = async (
  auth: AuthContext,
  input: { gtokenAddress: string; referrer?: string | undefined },
  deps: SubmitClaimDeps,
) => {
  const wallet = requireDelegated(await deps.loadWallet(auth.userId, { fresh: true }));
  for (let attempt = 0; ; attempt++) {
    const { plan, summary } = await prepareClaim({ ...input, participant: wallet.address }, deps);
    let signature: string | undefined;
    try {
      signature = await deps.chain.sendAndConfirm(plan, {
        cosign: (unsigned) => deps.signer.signTransaction(auth.userId, unsigned),
        timeoutMs: deps.confirmTimeoutMs ?? 20_000,
        onSent: (sent) => {
          signature = sent.signature;
        },
      });
      return { ...summary, signature, status: 'confirmed' as const };
    } catch (error) {
      if (!(error instanceof ChainError)) throw error;
      if (error.code === 'BLOCKHASH_EXPIRED' && attempt === 0) continue;
      if (signature && (error.code === 'CONFIRM_TIMEOUT' || error.code === 'RPC_UNAVAILABLE'))
        return { ...summary, signature, status: 'pending' as const };
      if (/insufficient (funds|lamports)/i.test(`${error.message} ${error.logs.join(' ')}`))
        throw new AppError(
          'INSUFFICIENT_BALANCE',
          `The wallet ${wallet.address} cannot pay the claim's fee and receipt rent`,
        );
      throw error;
    }
  }
};
