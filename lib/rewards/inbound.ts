// A transfer into a pool vault from a user's embedded wallet, signed through the wallet signer: a multiplier
// purchase or a studio's deposit into a tournament period. Its record (the intent) is written before anything is
// sent, its signature recorded before sending (so of two senders only one sends), and a retry decides from the
// chain whether it landed, can still land, or provably never will (then it may send again without paying twice).
import { getTransferSolInstruction } from '@solana-program/system';
import type { WalletLoader, WalletSigner } from '../adapters/wallet-signer.js';
import {
  address,
  type Chain,
  ChainError,
  externalSigner,
  memoInstruction,
  signatureFate,
  type TransactionPlan,
} from '../chain/index.js';
import { AppError } from '../core/errors.js';
import { PURCHASE_FEE_RESERVE, PURCHASE_MAX_FEE } from './model.js';

/** What a transfer into a vault needs of the chain and the identity provider. */
export interface InboundDeps {
  chain: Pick<Chain, 'getBalance' | 'sendAndConfirm' | 'confirm' | 'getSignatureStatus' | 'getBlockHeight'>;
  signer: WalletSigner;
  loadWallet: WalletLoader;
  now: () => Date;
  /** Budget for sending and confirming a transfer within one request (ms). Default 20 000. */
  confirmTimeoutMs?: number;
}

/** The stored intent of a transfer into a vault (lamports as a decimal string: money). */
export interface Inbound {
  arcId: string;
  walletAddress: string;
  vaultAddress: string;
  lamports: string;
  signature?: string;
  lastValidBlockHeight?: number;
  updatedAt: string;
}

/** How one kind of inbound transfer is recorded and shown. */
export interface InboundOps<T extends Inbound, V> {
  /** The memo tying the transfer to its record on chain. */
  memo: (t: T) => string;
  /** Record the signature before sending; false when another request recorded one first. */
  recordSignature: (
    t: T,
    previous: string | undefined,
    sent: { signature: string; lastValidBlockHeight: number },
  ) => Promise<boolean>;
  /** The transfer landed: complete the record (once) and answer. */
  finish: (t: T, signature: string, replayed: boolean) => Promise<V>;
  /** Fail the record if it is still as seen (same signature or none); false when it moved on. */
  fail: (t: T, seenSignature: string | undefined, reason: string) => Promise<boolean>;
  /** The answer while the transfer is still pending. */
  view: (t: T, replayed: boolean) => V;
  /** The refusal when another request is sending the same transfer. */
  busy: string;
  /** The refusal of a record that failed (nothing was transferred). */
  failed: (reason: string) => AppError;
}

export const conflict = (message: string) => new AppError('CONFLICT', message);

/** The refusal of a failed record (nothing was transferred): for lack of funds, or otherwise, and what to do. */
export const transferFailed = (what: string, again: string) => (reason: string | undefined) =>
  /insufficient (funds|lamports)/i.test(reason ?? '')
    ? new AppError('INSUFFICIENT_BALANCE', `The transfer failed for lack of funds: ${reason ?? ''}`)
    : conflict(
        `This ${what} failed (${reason ?? 'unknown reason'}); nothing was transferred. Use a new idempotencyKey to ${again}`,
      );

/** The wallet holds the amount and the fee reserve, or a 400 saying how much is missing. */
export const assertBalance = async (
  deps: Pick<InboundDeps, 'chain'>,
  wallet: string,
  lamports: bigint,
  what = 'this purchase',
) => {
  const balance = await deps.chain.getBalance(wallet);
  const required = lamports + PURCHASE_FEE_RESERVE;
  if (balance < required) {
    throw new AppError(
      'INSUFFICIENT_BALANCE',
      `Your embedded wallet ${wallet} holds ${balance} lamports; ${what} needs ${required} ` +
        `(amount ${lamports} + fee reserve ${PURCHASE_FEE_RESERVE})`,
      [{ path: 'wallet', message: `balance ${balance} < required ${required}` }],
    );
  }
};

/** A System transfer from the user's wallet (fee payer, signing through the wallet signer) to the vault, with a memo. */
export const buildInboundTransfer = (args: {
  from: string;
  to: string;
  lamports: bigint;
  memo: string;
}): TransactionPlan => {
  const payer = externalSigner(args.from);
  return {
    feePayer: payer.address,
    instructions: [
      getTransferSolInstruction({ source: payer, destination: address(args.to), amount: args.lamports }),
      memoInstruction(args.memo),
    ],
  };
};

/** Sign (wallet signer, the user paying the fee), record the signature before sending, send and confirm. */
const transferOnce = <T extends Inbound, V>(
  t: T,
  prior: string | undefined,
  ops: InboundOps<T, V>,
  deps: InboundDeps,
  onSigned: (s: string) => void,
) =>
  deps.chain.sendAndConfirm(
    buildInboundTransfer({
      from: t.walletAddress,
      to: t.vaultAddress,
      lamports: BigInt(t.lamports),
      memo: ops.memo(t),
    }),
    {
      cosign: (unsigned) => deps.signer.signTransaction(t.arcId, unsigned),
      maxFeeLamports: PURCHASE_MAX_FEE,
      timeoutMs: deps.confirmTimeoutMs ?? 20_000,
      onSent: async (sent) => {
        if (!(await ops.recordSignature(t, prior, sent))) throw conflict(ops.busy);
        onSigned(sent.signature);
      },
    },
  );

/**
 * What a failed send means: an expired blockhash can be retried (it never landed); a timeout after sending
 * leaves the record pending (it may still land); a rejected or failed transfer fails the record.
 */
const afterSendError = async <T extends Inbound, V>(
  error: unknown,
  t: T,
  seen: { signature: string | undefined; sentNow: boolean },
  ops: InboundOps<T, V>,
  replayed: boolean,
): Promise<V | 'retry'> => {
  if (!(error instanceof ChainError)) throw error;
  if (error.code === 'BLOCKHASH_EXPIRED') return 'retry';
  if (seen.sentNow && (error.code === 'CONFIRM_TIMEOUT' || error.code === 'RPC_UNAVAILABLE'))
    return ops.view({ ...t, signature: seen.signature }, replayed);
  if (error.code === 'SIMULATION_FAILED' || error.code === 'TRANSACTION_FAILED') {
    const reason = `${error.message} ${error.logs.join(' ')}`.trim();
    await ops.fail(t, seen.signature, reason);
    if (/insufficient (funds|lamports)/i.test(reason))
      throw new AppError('INSUFFICIENT_BALANCE', 'The wallet cannot pay the transfer and its fee');
  }
  throw error;
};

/** Send the transfer (a fresh blockhash once if the first expires unlanded), then finish. */
export const sendInbound = async <T extends Inbound, V>(
  t: T,
  previous: string | undefined,
  ops: InboundOps<T, V>,
  deps: InboundDeps,
  replayed: boolean,
): Promise<V> => {
  let signature = previous;
  for (let attempt = 0; attempt < 2; attempt++) {
    const prior = signature;
    try {
      const confirmed = await transferOnce(t, prior, ops, deps, (s) => {
        signature = s;
      });
      return await ops.finish({ ...t, signature: confirmed }, confirmed, replayed);
    } catch (error) {
      const outcome = await afterSendError(
        error,
        t,
        { signature, sentNow: signature !== prior },
        ops,
        replayed,
      );
      if (outcome !== 'retry') return outcome;
    }
  }
  // Two blockhashes expired unlanded: still pending; a retry with the same key sends again.
  return ops.view({ ...t, signature }, replayed);
};

/**
 * A pending record whose transfer was sent: wait for it while it may still land and finish it; undefined when it
 * provably never will (its blockhash expired unlanded), so sending again cannot charge twice.
 */
export const confirmSent = async <T extends Inbound, V>(
  existing: T & { signature: string },
  ops: InboundOps<T, V>,
  deps: InboundDeps,
): Promise<V | undefined> => {
  const sent = { signature: existing.signature, lastValidBlockHeight: existing.lastValidBlockHeight ?? 0 };
  const fate = await signatureFate(deps.chain, sent);
  if (fate.kind === 'failed') {
    const reason = `transfer failed on chain: ${JSON.stringify(fate.err)}`;
    await ops.fail(existing, sent.signature, reason);
    throw ops.failed(reason);
  }
  if (fate.kind === 'expired') return undefined;
  try {
    const signature = await deps.chain.confirm(sent, { timeoutMs: deps.confirmTimeoutMs ?? 20_000 });
    return await ops.finish(existing, signature, true);
  } catch (error) {
    if (!(error instanceof ChainError)) throw error;
    if (error.code === 'CONFIRM_TIMEOUT' || error.code === 'RPC_UNAVAILABLE') return ops.view(existing, true);
    if (error.code === 'BLOCKHASH_EXPIRED') return undefined;
    throw error;
  }
};

/** A retry of a pending record: resume confirming what was sent, or (nothing can land) send again. */
export const resumeInbound = async <T extends Inbound, V>(
  existing: T,
  ops: InboundOps<T, V>,
  deps: InboundDeps,
  what?: string,
  /** Checks before sending again (may refuse: nothing was charged). */
  beforeResend?: (t: T) => Promise<void>,
): Promise<V> => {
  const { signature } = existing;
  if (signature) {
    const settled = await confirmSent({ ...existing, signature }, ops, deps);
    if (settled) return settled;
  }
  // Never sent, or sent and provably never landing: nothing was charged, so send (again).
  await beforeResend?.(existing);
  await assertBalance(deps, existing.walletAddress, BigInt(existing.lamports), what);
  return sendInbound(existing, signature, ops, deps, true);
};
