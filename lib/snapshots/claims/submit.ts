// Claiming for a signed-in user's embedded wallet: the wallet is the identity provider's, so the user cannot sign
// the built transaction with a key of their own; the platform has the provider sign it as the wallet (delegated
// signing, as for launches and purchases) and sends it. External wallets keep build-transactions and sign there.
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import type { WalletLoader, WalletSigner } from '../../adapters/wallet-signer.js';
import {
  address,
  budgetOfTransaction,
  type Chain,
  ChainError,
  decodeWireTransaction,
  RECEIPT_SPACE,
} from '../../chain/index.js';
import type { AuthContext } from '../../core/auth.js';
import { AppError, errors } from '../../core/errors.js';
import { requireDelegated } from '../../user/index.js';
import type { ClaimRecord } from '../repository.js';
import { type ClaimDeps, claimView, reserveClaim } from './claims.js';

export interface SubmitClaimDeps extends ClaimDeps {
  chain: ClaimDeps['chain'] & Pick<Chain, 'sendSigned' | 'getBalance'>;
  signer: WalletSigner;
  loadWallet: WalletLoader;
  /** Notes the claim's signature before it is sent. */
  noteClaimSignature(claim: ClaimRecord, signature: string): Promise<void>;
  /** Default 20 000. */
  confirmTimeoutMs?: number;
}

/** A token account's size: 165 bytes, plus the ImmutableOwner extension (170) that Token-2022 ATAs carry. */
const TOKEN_ACCOUNT_BYTES = { classic: 165, token2022: 170 };

/** 400 INSUFFICIENT_BALANCE before the provider is asked to sign, when the wallet cannot pay what the claim costs. */
const assertCanPay = async (coinMint: string, wallet: string, fee: bigint, deps: SubmitClaimDeps) => {
  const coin = await deps.chain.getMint(coinMint);
  if (!coin) throw errors.notFound(`Game coin ${coinMint}`);
  const [tokenAccount] = await findAssociatedTokenPda({
    mint: address(coinMint),
    owner: address(wallet),
    tokenProgram: address(coin.programId),
  });
  const [balance, account, receiptRent] = await Promise.all([
    deps.chain.getBalance(wallet),
    deps.chain.getAccountInfo(tokenAccount),
    deps.chain.getMinimumBalanceForRentExemption(RECEIPT_SPACE),
  ]);
  const bytes =
    coin.programId === TOKEN_PROGRAM_ADDRESS ? TOKEN_ACCOUNT_BYTES.classic : TOKEN_ACCOUNT_BYTES.token2022;
  const accountRent = account ? 0n : await deps.chain.getMinimumBalanceForRentExemption(bytes);
  const required = fee + receiptRent + accountRent;
  if (balance < required)
    throw new AppError(
      'INSUFFICIENT_BALANCE',
      `Your embedded wallet ${wallet} holds ${balance} lamports; this claim needs ${required} (network fee ` +
        `${fee}, claim receipt rent ${receiptRent}, token account rent ${accountRent})`,
      [{ path: 'wallet', message: `balance ${balance} < required ${required}` }],
    );
};

type Sent = { signature: string; status: 'confirmed' | 'pending'; claim: ClaimRecord };

/**
 * Have the provider sign the recorded claim as the wallet, send it and confirm it. Undefined when its blockhash
 * expired unlanded (the next read settles it `expired`, and the claim can be built again).
 */
const sendClaim = async (
  auth: AuthContext,
  claim: ClaimRecord,
  deps: SubmitClaimDeps,
): Promise<Sent | undefined> => {
  let signature: string | undefined;
  try {
    signature = await deps.chain.sendSigned(
      decodeWireTransaction(claim.transaction),
      claim.lastValidBlockHeight,
      {
        cosign: (unsigned) => deps.signer.signTransaction(auth.userId, unsigned),
        timeoutMs: deps.confirmTimeoutMs ?? 20_000,
        onSent: async (sent) => {
          signature = sent.signature;
          await deps.noteClaimSignature(claim, sent.signature);
        },
      },
    );
    const at = deps.now().toISOString();
    return {
      signature,
      status: 'confirmed',
      claim: await deps.settleClaim(claim, { status: 'landed', at, signature }),
    };
  } catch (error) {
    if (!(error instanceof ChainError)) throw error;
    if (error.code === 'BLOCKHASH_EXPIRED') return undefined;
    if (signature && (error.code === 'CONFIRM_TIMEOUT' || error.code === 'RPC_UNAVAILABLE'))
      return { signature, status: 'pending', claim };
    if (/insufficient (funds|lamports)/i.test(`${error.message} ${error.logs.join(' ')}`))
      throw new AppError(
        'INSUFFICIENT_BALANCE',
        `The wallet ${claim.wallet} cannot pay the claim's fee and receipt rent`,
      );
    throw error;
  }
};

/**
 * POST /token-launcher/exercise-claim/submit. The wallet and its delegation are read fresh from the provider and
 * checked before anything is built or sent (400 NO_EMBEDDED_WALLET, 403 WALLET_DELEGATION_REQUIRED). The claim is
 * recorded as the participant's own (`origin: submit`) before the provider is asked to sign: no public build can
 * replace it, so its referrer is the one given here. A pending claim a public build recorded is replaced by this
 * one (same number and amount); the participant's own pending one is signed and sent again (same transaction, same
 * signature); one that expired unlanded is built again once, and one still unconfirmed at the deadline answers
 * `pending`.
 */
export const submitClaim = async (
  auth: AuthContext,
  input: { gtokenAddress: string; referrer?: string | undefined },
  deps: SubmitClaimDeps,
) => {
  const wallet = requireDelegated(await deps.loadWallet(auth.userId, { fresh: true }));
  const participant = wallet.address;
  // Checked before anything is recorded or signed: a wallet that cannot pay leaves no claim behind.
  const canPay = (fee: bigint) => assertCanPay(input.gtokenAddress, participant, fee, deps);
  for (let attempt = 0; attempt < 2; attempt++) {
    const { claim, created } = await reserveClaim({ ...input, participant }, 'submit', deps, canPay);
    // The fee of the transaction recorded (its own limit and price), which the wallet pays.
    if (!created) await canPay(budgetOfTransaction(decodeWireTransaction(claim.transaction)).fee);
    const sent = await sendClaim(auth, claim, deps);
    if (sent)
      return { ...claimView(sent.claim), participant, signature: sent.signature, status: sent.status };
  }
  throw new ChainError(
    'BLOCKHASH_EXPIRED',
    `The claim of ${participant} expired twice without landing; retry`,
  );
};
