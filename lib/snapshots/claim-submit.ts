// Claiming for a signed-in user's embedded wallet: the wallet is the identity provider's, so the user cannot sign
// the built transaction with a key of their own; the platform has the provider sign it as the wallet (delegated
// signing, as for launches and purchases) and sends it. External wallets keep build-transactions and sign there.
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import type { WalletLoader, WalletSigner } from '../adapters/wallet-signer.js';
import { type Chain, ChainError } from '../chain/index.js';
import type { AuthContext } from '../core/auth.js';
import { AppError } from '../core/errors.js';
import { requireDelegated } from '../user/index.js';
import { type ClaimDeps, type PreparedClaim, prepareClaim } from './claims.js';

export interface SubmitClaimDeps extends ClaimDeps {
  chain: ClaimDeps['chain'] & Pick<Chain, 'sendAndConfirm' | 'getBalance'>;
  signer: WalletSigner;
  loadWallet: WalletLoader;
  /** Default 20 000. */
  confirmTimeoutMs?: number;
}

const FEE_LAMPORTS = 5_000n;
/** A token account's size: 165 bytes, plus the ImmutableOwner extension (170) that Token-2022 ATAs carry. */
const TOKEN_ACCOUNT_BYTES = { classic: 165, token2022: 170 };

/** 400 INSUFFICIENT_BALANCE before the provider is asked to sign, when the wallet cannot pay what the claim costs. */
const assertCanPay = async (wallet: string, costs: PreparedClaim['costs'], deps: SubmitClaimDeps) => {
  const [balance, tokenAccount] = await Promise.all([
    deps.chain.getBalance(wallet),
    deps.chain.getAccountInfo(costs.tokenAccount),
  ]);
  const bytes =
    costs.tokenProgram === TOKEN_PROGRAM_ADDRESS
      ? TOKEN_ACCOUNT_BYTES.classic
      : TOKEN_ACCOUNT_BYTES.token2022;
  const accountRent = tokenAccount ? 0n : await deps.chain.getMinimumBalanceForRentExemption(bytes);
  const required = FEE_LAMPORTS + costs.receiptLamports + accountRent;
  if (balance < required)
    throw new AppError(
      'INSUFFICIENT_BALANCE',
      `Your embedded wallet ${wallet} holds ${balance} lamports; this claim needs ${required} (network fee ` +
        `${FEE_LAMPORTS}, claim receipt rent ${costs.receiptLamports}, token account rent ${accountRent})`,
      [{ path: 'wallet', message: `balance ${balance} < required ${required}` }],
    );
};

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
    const { plan, summary, costs } = await prepareClaim({ ...input, participant: wallet.address }, deps);
    await assertCanPay(wallet.address, costs, deps);
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
