// The game coin on chain (docs/game-coin.md): three idempotent launch steps (complete-launch's verification is in
// coin-verify.ts). Every step is keyed by the launch's persisted mint and vault keypairs and reads chain state
// before sending, so a retried or re-run step finds its work done and returns without a second mint or buy:
//   (a) createCoinMint   Token-2022 mint + metadata pointer + token metadata   guard: the mint account exists
//   (b) mintCoinSupply   fixed supply → vault, mint + metadata authority revoked   guard: supply minted, authority null
//   (c) initialBuy       buyer lamports → vault, curve-quoted tokens → buyer       guard: the vault's receipt, used
// The vault is a custodial keypair held (sealed) by the platform. The user's embedded wallet pays all fees and
// rent through the WalletSigner.
import type { WalletSigner } from '../adapters/wallet-signer.js';
import {
  buildCreateCoinMintTx,
  buildInitialBuyTx,
  buildMintSupplyTx,
  type Chain,
  ChainError,
  type ChainReader,
  type CoinMetadata,
  coinMintSizes,
  externalSigner,
  initialBuyReceipt,
  isUnclaimedSystemAccount,
  RECEIPT_SPACE,
  receiptUsed,
  type SentTransaction,
  type TransactionPlan,
  vaultTokenAccount,
} from '../chain/index.js';
import { COIN_DECIMALS, COIN_SUPPLY, CoinLaunchError, type LaunchKeys } from './coin.js';
import { type CurveState, INITIAL_CURVE, quoteBuy } from './curve.js';

/** Dependencies of the launch steps. */
export interface CoinDeps {
  chain: Chain;
  signer: WalletSigner;
}

/** Who launches: the user whose embedded wallet pays and buys, and the launch's keys. */
export interface Launch {
  userId: string;
  keys: LaunchKeys;
}

export interface StepOptions {
  /** Deadline for sending and confirming. Default 30 000. */
  timeoutMs?: number;
  /** Called with the signature before sending (persist it to resume confirmation after a crash). */
  onSent?: (sent: SentTransaction) => void | Promise<void>;
}

export interface StepResult {
  /** Signature of the transaction this call confirmed, or of the earlier one found on chain (null if unknown). */
  signature: string | null;
  /** True when the chain already showed the step done and nothing was sent. */
  skipped: boolean;
}

export interface InitialBuyResult extends StepResult {
  tokensOut: bigint;
  fee: bigint;
  /** Lamports moved from the buyer to the vault (fee included). */
  lamportsIn: bigint;
  newState: CurveState;
}

/** The user's embedded wallet as the paying signer; its signature is added by the WalletSigner. */
const walletOf = async (deps: CoinDeps, launch: Launch) =>
  externalSigner(await deps.signer.address(launch.userId));

const send = (deps: CoinDeps, launch: Launch, plan: TransactionPlan, options: StepOptions) =>
  deps.chain.sendAndConfirm(plan, {
    cosign: (unsigned) => deps.signer.signTransaction(launch.userId, unsigned),
    timeoutMs: options.timeoutMs,
    onSent: options.onSent,
  });

/**
 * Send a step unless `done()` already holds; when sending fails permanently, look again — a concurrent or
 * earlier attempt may have done the work (the second copy then fails on chain) — before giving up.
 */
const idempotent = async (
  done: () => Promise<{ signature: string | null } | null>,
  run: () => Promise<string>,
): Promise<StepResult> => {
  const before = await done();
  if (before) return { signature: before.signature, skipped: true };
  try {
    return { signature: await run(), skipped: false };
  } catch (error) {
    if (error instanceof ChainError && !error.transient) {
      const after = await done();
      if (after) return { signature: after.signature, skipped: true };
    }
    throw error;
  }
};

/** Step (a): create the Token-2022 mint with metadata pointer and metadata (name, symbol, uri), 6 decimals. */
export const createCoinMint = async (
  deps: CoinDeps,
  launch: Launch,
  metadata: CoinMetadata,
  options: StepOptions = {},
): Promise<StepResult> => {
  const { mint, vault } = launch.keys;
  let existing = 0n;
  const done = async () => {
    const account = await deps.chain.getAccountInfo(mint.address);
    // Absent, or only funded by someone: the mint is still to be made (Allocate + Assign take a funded address).
    if (isUnclaimedSystemAccount(account)) {
      existing = account?.lamports ?? 0n;
      return null;
    }
    const info = await deps.chain.getMint(mint.address);
    if (!info?.isToken2022 || !info.metadata)
      throw new CoinLaunchError(`Address ${mint.address} already holds an account that is not a coin mint`);
    return { signature: null };
  };
  return idempotent(done, async () => {
    const lamports = await deps.chain.getMinimumBalanceForRentExemption(coinMintSizes(metadata).total);
    const plan = buildCreateCoinMintTx({
      payer: await walletOf(deps, launch),
      mint,
      vault,
      decimals: COIN_DECIMALS,
      metadata,
      lamports,
      existingLamports: existing,
    });
    return send(deps, launch, plan, options);
  });
};

/** Step (b): mint the fixed supply into the vault's token account and revoke the mint authority, atomically. */
export const mintCoinSupply = async (
  deps: CoinDeps,
  launch: Launch,
  options: StepOptions = {},
): Promise<StepResult> => {
  const { mint, vault } = launch.keys;
  const done = async () => {
    const info = await deps.chain.getMint(mint.address);
    if (!info) throw new CoinLaunchError('The coin mint does not exist yet: create it first');
    if (info.supply === COIN_SUPPLY && info.mintAuthority === null) return { signature: null };
    if (info.mintAuthority !== vault.address || info.supply !== 0n)
      throw new CoinLaunchError(
        `Mint ${mint.address} is in an unexpected state (supply ${info.supply}, authority ${info.mintAuthority})`,
      );
    return null;
  };
  return idempotent(done, async () => {
    const rent = await deps.chain.getMinimumBalanceForRentExemption(0);
    const balance = await deps.chain.getBalance(vault.address);
    const plan = await buildMintSupplyTx({
      payer: await walletOf(deps, launch),
      mint: mint.address,
      vault,
      supply: COIN_SUPPLY,
      decimals: COIN_DECIMALS,
      vaultTopUp: balance < rent ? rent - balance : 0n,
    });
    return send(deps, launch, plan, options);
  });
};

/** Signatures read per page of an address's history, and pages at most: its oldest 10 000. */
const HISTORY_PAGE = 1_000;
const HISTORY_PAGES = 10;
/** Transactions opened at most while searching the history (each is a getTransaction). */
const HISTORY_LOOKUPS = 50;

/** The successful signatures that touched `address`, oldest first, paging back to its first (bounded). */
const historyOldestFirst = async (
  chain: Pick<ChainReader, 'findSignatures'>,
  address: string,
): Promise<string[]> => {
  const all: string[] = [];
  let before: string | undefined;
  for (let page = 0; page < HISTORY_PAGES; page++) {
    const list = await chain.findSignatures(address, HISTORY_PAGE, before);
    for (const s of list) if (s.err === null) all.push(s.signature);
    const last = list.at(-1);
    if (list.length < HISTORY_PAGE || !last) break;
    before = last.signature;
  }
  return all.reverse();
};

/**
 * The successful transaction `signer` signed among `known` (signatures the platform recorded), else in the
 * history of `address` from its oldest signature on; null when none is found. Anybody can touch an address (dust
 * transfers push the creating transaction out of the newest signatures), and only the signer's signature tells
 * the platform's transaction apart from a stranger's: the history is read back to its start (up to 10 000
 * signatures) and the oldest are opened first, at most 50 of them.
 */
export const findSignedBy = async (
  chain: Pick<ChainReader, 'findSignatures' | 'getLandedTransaction'>,
  address: string,
  signer: string,
  known: ReadonlyArray<string | null | undefined> = [],
): Promise<string | null> => {
  const signedBy = async (signature: string) =>
    (await chain.getLandedTransaction(signature))?.signers.includes(signer) ?? false;
  const recorded = [...new Set(known.filter((s): s is string => !!s))];
  for (const signature of recorded) if (await signedBy(signature)) return signature;
  const history = (await historyOldestFirst(chain, address)).filter((s) => !recorded.includes(s));
  for (const signature of history.slice(0, HISTORY_LOOKUPS)) if (await signedBy(signature)) return signature;
  return null;
};

/**
 * Step (c): the initial buy at launch price, one atomic transaction whose signature is the job's `bundleTx`.
 * `curve` is the curve before the buy (a new coin's is INITIAL_CURVE); the quote fields of the result are
 * computed from the arguments, so a re-run must pass the same ones.
 */
export const initialBuy = async (
  deps: CoinDeps,
  launch: Launch,
  buyAmount: bigint,
  options: StepOptions & { curve?: CurveState; sentBefore?: string | null } = {},
): Promise<InitialBuyResult> => {
  const { mint, vault } = launch.keys;
  const quote = quoteBuy(options.curve ?? INITIAL_CURVE, buyAmount);
  if (quote.tokensOut === 0n) throw new CoinLaunchError('Buy amount too small to buy any token');
  const receipt = await initialBuyReceipt(vault.address);
  let sent = options.sentBefore;
  // Only the buy (signed by the vault) can allocate the receipt; a stranger's transfer to it changes nothing.
  const done = async () => {
    if (!receiptUsed(await deps.chain.getAccountInfo(receipt))) return null;
    return { signature: await findSignedBy(deps.chain, receipt, vault.address, [sent, options.sentBefore]) };
  };
  const result = await idempotent(done, async () => {
    const vaultBalance = await deps.chain.getTokenAccountBalance(
      await vaultTokenAccount(mint.address, vault.address),
    );
    if (vaultBalance < quote.tokensOut)
      throw new CoinLaunchError('The vault does not hold the quoted tokens: mint the supply first');
    const plan = await buildInitialBuyTx({
      buyer: await walletOf(deps, launch),
      mint: mint.address,
      vault,
      lamports: quote.lamportsIn,
      tokens: quote.tokensOut,
      decimals: COIN_DECIMALS,
      receipt,
      receiptLamports: await deps.chain.getMinimumBalanceForRentExemption(RECEIPT_SPACE),
      memo: `arcadia:initial-buy mint=${mint.address} lamports=${quote.lamportsIn} tokens=${quote.tokensOut}`,
    });
    return send(deps, launch, plan, {
      ...options,
      onSent: async (tx) => {
        sent = tx.signature;
        await options.onSent?.(tx);
      },
    });
  });
  return { ...result, ...quote };
};
