// Signing, sending and confirming: the chain adapter of the functions that write to the chain. It
// extends the reader (./reader.ts) over the same RPC client; confirmations poll getSignatureStatuses against a
// deadline (no WebSockets: Lambda). kit replaced @solana/web3.js 1.x: it tree-shakes to what a function uses
// and loads in a few ms where web3.js + spl-token took ~100 ms of every chain function's cold start.
import {
  type Address,
  appendTransactionMessageInstructions,
  type Base64EncodedWireTransaction,
  type Blockhash,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  getPublicKeyFromAddress,
  getSignatureFromTransaction,
  getTransactionDecoder,
  type Instruction,
  isSolanaError,
  partiallySignTransactionMessageWithSigners,
  SOLANA_ERROR__TRANSACTION__FAILED_WHEN_SIMULATING_TO_ESTIMATE_COMPUTE_LIMIT,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Transaction,
  lamports as toLamports,
  verifySignature,
} from '@solana/kit';
import { estimateComputeUnitLimitFactory, MAX_COMPUTE_UNIT_LIMIT } from '@solana-program/compute-budget';
import { MIN_CALL_MS, remainingMs } from '../core/deadline.js';
import {
  budgetOfTransaction,
  type ComputeBudget,
  feeOf,
  hasComputeBudget,
  PRIORITY_PERCENTILE,
  priceWithin,
  priorityPrice,
  signersOf,
  unitLimitFor,
  withComputeBudget,
  writableAccounts,
} from './budget.js';
import { ChainError, fromRpcAnswer, toChainError } from './errors.js';
import { signatureFate, statusSighting, type TransactionFate } from './fate.js';
import {
  type AddressLike,
  type ChainOptions,
  type ChainReader,
  COMMITMENT,
  makeChainReader,
  rpcCall,
  rpcTransport,
  solanaRpc,
  toKey,
} from './reader.js';
import { rpcLimiter } from './rpc-budget.js';

/** A sent transaction: enough to resume confirming it, or to know when it can no longer land. */
export interface SentTransaction {
  signature: string;
  lastValidBlockHeight: number;
}

/** A transaction being sent: its signature and lifetime, and the fee its payer pays when it lands. */
export interface SendingTransaction extends SentTransaction {
  fee: bigint;
}

/**
 * What to send: instructions whose signer accounts carry their signers (kit KeyPairSigners sign here; a
 * NoopSigner stands for a wallet that signs through `cosign`), and the fee payer.
 */
export interface TransactionPlan {
  feePayer: Address;
  instructions: readonly Instruction[];
}

export interface SendOptions {
  /** Overall deadline for sending and confirming. Default 30 000. */
  timeoutMs?: number;
  /** Adds the remaining signatures after the local signers (the user's embedded wallet). */
  cosign?: (tx: Transaction) => Promise<Transaction>;
  /** Called with the signature (and fee) before the transaction is sent, so a caller can persist it first. */
  onSent?: (sent: SendingTransaction) => void | Promise<void>;
  /** The compute budget to use (from `estimateBudget`); estimated for the plan when absent. */
  budget?: ComputeBudget;
  /** The most the transaction may cost its fee payer (lamports): the priority fee is lowered to fit. */
  maxFeeLamports?: bigint;
}

export interface BudgetOptions {
  /** The most the transaction may cost its fee payer (lamports): the priority fee is lowered to fit. */
  maxFeeLamports?: bigint;
  /** The limit to set when the simulation fails (default: the maximum, so the node's preflight tells why). */
  fallbackUnits?: number;
}

/** The reader plus what writes to the chain. */
export interface Chain extends ChainReader {
  /**
   * The compute budget of a plan: the units a simulation consumed plus a margin, and a price from the recent
   * prioritization fees of the accounts it writes, capped by the setting and by `maxFeeLamports`.
   */
  estimateBudget(plan: TransactionPlan, options?: BudgetOptions): Promise<ComputeBudget>;
  /**
   * Budget (unless the plan carries a compute budget), sign (the plan's signers, then `cosign`), send with
   * preflight, and confirm by polling before the deadline.
   */
  sendAndConfirm(plan: TransactionPlan, options?: SendOptions): Promise<string>;
  /**
   * Send a transaction the platform already signed (and recorded), after `cosign` adds the remaining signatures:
   * the same checks, sending and confirmation as sendAndConfirm, with the transaction's own lifetime.
   */
  sendSigned(partial: Transaction, lastValidBlockHeight: number, options?: SendOptions): Promise<string>;
  /** Poll an already-sent transaction until it is confirmed, fails, its blockhash expires or the deadline passes. */
  confirm(
    sent: SentTransaction,
    options?: { timeoutMs?: number; raw?: Base64EncodedWireTransaction },
  ): Promise<string>;
  /** Local chains only: fund an address from the faucet and wait for confirmation. */
  airdrop(address: AddressLike, lamports: bigint): Promise<string>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const isLoopback = (url: string) => {
  const host = new URL(url).hostname;
  return host === 'localhost' || host === '[::1]' || host.startsWith('127.');
};

/**
 * The plan as a legacy transaction with the given lifetime, signed by the signers its instructions carry
 * (NoopSigners leave their slots empty for a co-signer or the client).
 */
export const signPlan = (
  plan: TransactionPlan,
  lifetime: { blockhash: string; lastValidBlockHeight: number },
): Promise<Transaction> =>
  partiallySignTransactionMessageWithSigners(
    appendTransactionMessageInstructions(
      plan.instructions,
      setTransactionMessageLifetimeUsingBlockhash(
        {
          blockhash: lifetime.blockhash as Blockhash,
          lastValidBlockHeight: BigInt(lifetime.lastValidBlockHeight),
        },
        setTransactionMessageFeePayer(plan.feePayer, createTransactionMessage({ version: 'legacy' })),
      ),
    ),
  );

/** The wire form of a transaction, base64 (unsigned slots are zeros). */
export const wireTransaction = (tx: Transaction): string => getBase64EncodedWireTransaction(tx);

/** A transaction back from its base64 wire form. */
export const decodeWireTransaction = (wire: string): Transaction =>
  getTransactionDecoder().decode(Buffer.from(wire, 'base64'));

/**
 * Whether `signed` is `unsigned` with every signature present and valid: the same message (a co-signer may not
 * change it), the same signer slots (none dropped or added), each signature verified against the message.
 */
const completesSignatures = async (unsigned: Transaction, signed: Transaction): Promise<boolean> => {
  const bytes = (b: ArrayLike<number>) => Buffer.from(b as Uint8Array);
  if (!bytes(signed.messageBytes).equals(bytes(unsigned.messageBytes))) return false;
  const slots = Object.keys(unsigned.signatures);
  const signedSlots = Object.keys(signed.signatures);
  if (signedSlots.length !== slots.length || !slots.every((slot) => slot in signed.signatures)) return false;
  for (const [signer, signature] of Object.entries(signed.signatures)) {
    if (!signature) return false;
    const publicKey = await getPublicKeyFromAddress(signer as Address);
    if (!(await verifySignature(publicKey, signature, signed.messageBytes))) return false;
  }
  return true;
};

/** Polls between two expiry checks (each a block-height read around the status): about every 5 s at 1 s. */
const EXPIRY_CHECK_EVERY = 5;
/** The default cap of the compute-unit price, micro-lamports per unit (PRIORITY_FEE_MAX_MICROLAMPORTS). */
export const DEFAULT_PRIORITY_FEE_MAX_MICROLAMPORTS = 1_000_000;
/** getRecentPrioritizationFees takes at most this many accounts. */
const MAX_FEE_ACCOUNTS = 128;

/** The chain adapter over one RPC endpoint: the reader, plus budgeting, sending and confirming. */
export const makeChain = (options: ChainOptions): Chain => {
  const pollMs = options.pollMs ?? 1000;
  const resendMs = options.resendMs ?? 2000;
  const priceCap = BigInt(options.priorityFeeMaxMicroLamports ?? DEFAULT_PRIORITY_FEE_MAX_MICROLAMPORTS);
  const transport = rpcTransport(options);
  const rpc = solanaRpc(options, transport);
  const limiter = rpcLimiter(options.rpcUrl, options.budget);
  const percentile = options.fees?.percentile ?? PRIORITY_PERCENTILE;
  const reader = makeChainReader(options, rpc);
  const { getTransactionLogs, getLatestBlockhash, getSignatureStatus } = reader;
  const estimateUnits = estimateComputeUnitLimitFactory({ rpc });

  const failed = async (signature: string, err: unknown) =>
    new ChainError(
      'TRANSACTION_FAILED',
      `Transaction ${signature} failed: ${JSON.stringify(err, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`,
      { signature, logs: await getTransactionLogs(signature).catch(() => []) },
    );

  /** Units the plan (with its budget instructions) consumes in a simulation; undefined when the simulation fails. */
  const simulatedUnits = async (plan: TransactionPlan): Promise<number | undefined> => {
    const lifetime = await getLatestBlockhash();
    const probe = withComputeBudget(plan, { units: MAX_COMPUTE_UNIT_LIMIT, microLamports: 0n });
    const message = appendTransactionMessageInstructions(
      probe.instructions,
      setTransactionMessageLifetimeUsingBlockhash(
        {
          blockhash: lifetime.blockhash as Blockhash,
          lastValidBlockHeight: BigInt(lifetime.lastValidBlockHeight),
        },
        setTransactionMessageFeePayer(plan.feePayer, createTransactionMessage({ version: 'legacy' })),
      ),
    );
    try {
      return await estimateUnits(message);
    } catch (error) {
      // The transaction fails as it stands: the preflight of the send reports why, in the node's words.
      if (isSolanaError(error, SOLANA_ERROR__TRANSACTION__FAILED_WHEN_SIMULATING_TO_ESTIMATE_COMPUTE_LIMIT))
        return undefined;
      throw toChainError(isSolanaError(error) && error.cause ? error.cause : error, {
        action: 'simulateTransaction',
      });
    }
  };

  /** The bid from recent per-slot fees: their `percentile`, capped. */
  const recentPrice = async (accounts: Address[]): Promise<bigint> => {
    const fees = await rpcCall('getRecentPrioritizationFees', () =>
      rpc.getRecentPrioritizationFees(accounts.slice(0, MAX_FEE_ACCOUNTS)).send(),
    );
    return priorityPrice(
      fees.map((f) => BigInt(f.prioritizationFee)),
      priceCap,
      percentile,
    );
  };

  /** The provider's estimate for these accounts at its `High` level, capped (budget.ts says why). */
  const providerPrice = async (accounts: Address[]): Promise<bigint> => {
    const method = 'getPriorityFeeEstimate';
    const answer = await rpcCall(method, () =>
      transport<{
        result?: { priorityFeeEstimate?: unknown };
        error?: { code: number; message: string };
      }>({
        payload: {
          jsonrpc: '2.0',
          id: 1,
          method,
          params: [{ accountKeys: accounts.slice(0, MAX_FEE_ACCOUNTS), options: { priorityLevel: 'High' } }],
        },
      }),
    );
    if (answer.error) throw fromRpcAnswer(method, { error: answer.error });
    const estimate = Number(answer.result?.priorityFeeEstimate);
    if (!Number.isFinite(estimate) || estimate < 0)
      throw new ChainError('RPC_ERROR', `${method}: malformed answer (priorityFeeEstimate)`);
    const price = BigInt(Math.ceil(estimate));
    return price < priceCap ? price : priceCap;
  };

  const estimateBudget: Chain['estimateBudget'] = async (plan, budgetOptions = {}) => {
    const accounts = writableAccounts(plan);
    const [consumed, price] = await Promise.all([
      simulatedUnits(plan),
      priceCap <= 0n
        ? 0n
        : options.fees?.source === 'helius'
          ? providerPrice(accounts)
          : recentPrice(accounts),
    ]);
    const units =
      consumed === undefined
        ? (budgetOptions.fallbackUnits ?? MAX_COMPUTE_UNIT_LIMIT)
        : unitLimitFor(consumed);
    const signatures = signersOf(plan);
    let microLamports = price;
    if (budgetOptions.maxFeeLamports !== undefined) {
      const within = priceWithin(budgetOptions.maxFeeLamports, signatures, units);
      if (within === null)
        throw new ChainError(
          'SIMULATION_FAILED',
          `The transaction's base fee exceeds its fee bound of ${budgetOptions.maxFeeLamports} lamports`,
        );
      if (within < microLamports) microLamports = within;
    }
    return { units, microLamports, signatures, fee: feeOf({ signatures, units, microLamports }) };
  };

  /**
   * One poll: landed (the signature), or undefined while it may still land; throws when it failed or expired.
   * Only a poll with `checkExpiry` reads the block height (around the status, see fate.ts) and can decide expiry.
   */
  const poll = async (
    sent: SentTransaction,
    deadline: number,
    checkExpiry: boolean,
  ): Promise<string | undefined> => {
    let fate: TransactionFate | { kind: 'processed' | 'unseen' };
    try {
      fate = checkExpiry
        ? await signatureFate(reader, sent)
        : statusSighting(await getSignatureStatus(sent.signature));
    } catch (error) {
      // A flaky poll is not the transaction failing: keep polling until the deadline.
      if (error instanceof ChainError && error.transient && Date.now() < deadline) return undefined;
      throw error;
    }
    if (fate.kind === 'landed') return sent.signature;
    if (fate.kind === 'failed') throw await failed(sent.signature, fate.err);
    if (fate.kind === 'expired')
      throw new ChainError(
        'BLOCKHASH_EXPIRED',
        `Transaction ${sent.signature} expired (block height past ${sent.lastValidBlockHeight}) without landing`,
        { signature: sent.signature },
      );
    return undefined;
  };

  const broadcast = (raw: Base64EncodedWireTransaction, preflight: boolean) =>
    rpc
      .sendTransaction(raw, {
        encoding: 'base64',
        skipPreflight: !preflight,
        preflightCommitment: COMMITMENT,
        maxRetries: 0n,
      })
      .send();

  const confirm: Chain['confirm'] = async (sent, { timeoutMs = 30_000, raw } = {}) => {
    const { signature } = sent;
    // Not past the invocation's deadline either: the last poll must still fit (the transaction may land later,
    // and the caller's records resume it).
    const deadline = Date.now() + Math.max(0, Math.min(timeoutMs, remainingMs() - MIN_CALL_MS));
    let lastSend = Date.now();
    for (let polls = 0; ; polls++) {
      // The first poll and every few after it also check expiry; the ones between only read the status.
      if (await poll(sent, deadline, polls % EXPIRY_CHECK_EVERY === 0)) return signature;
      if (Date.now() >= deadline)
        throw new ChainError(
          'CONFIRM_TIMEOUT',
          `Transaction ${signature} not confirmed within ${timeoutMs} ms`,
          {
            signature,
          },
        );
      // A re-broadcast is optional: it never waits for the send budget (first sends need it more), it skips a turn.
      if (raw && Date.now() - lastSend >= resendMs && limiter.freeNow('sendTransaction')) {
        lastSend = Date.now();
        await broadcast(raw, false).catch(() => undefined);
      }
      await sleep(Math.min(pollMs, Math.max(0, deadline - Date.now())));
    }
  };

  const sendSigned: Chain['sendSigned'] = async (partial, lastValidBlockHeight, sendOptions = {}) => {
    const timeoutMs = sendOptions.timeoutMs ?? 30_000;
    const started = Date.now();
    const signed = sendOptions.cosign ? await sendOptions.cosign(partial) : partial;
    if (!(await completesSignatures(partial, signed)))
      throw new ChainError(
        'MISSING_SIGNATURE',
        'Transaction is missing a required signature, one is invalid, or its message was changed',
      );
    const signature = getSignatureFromTransaction(signed);
    const raw = getBase64EncodedWireTransaction(signed);
    await sendOptions.onSent?.({ signature, lastValidBlockHeight, fee: budgetOfTransaction(signed).fee });
    try {
      await broadcast(raw, true);
    } catch (error) {
      const chainError = toChainError(error, { signature, action: 'sendTransaction' });
      // A transport failure may still have delivered it: keep confirming (and re-broadcasting) until the deadline.
      if (chainError.code !== 'ALREADY_PROCESSED' && chainError.code !== 'RPC_UNAVAILABLE') throw chainError;
    }
    return confirm(
      { signature, lastValidBlockHeight },
      { timeoutMs: timeoutMs - (Date.now() - started), raw },
    );
  };

  const sendAndConfirm: Chain['sendAndConfirm'] = async (plan, sendOptions = {}) => {
    const started = Date.now();
    const budgeted = hasComputeBudget(plan)
      ? plan
      : withComputeBudget(
          plan,
          sendOptions.budget ?? (await estimateBudget(plan, { maxFeeLamports: sendOptions.maxFeeLamports })),
        );
    const lifetime = await getLatestBlockhash();
    const partial = await signPlan(budgeted, lifetime);
    const timeoutMs = (sendOptions.timeoutMs ?? 30_000) - (Date.now() - started);
    return sendSigned(partial, lifetime.lastValidBlockHeight, { ...sendOptions, timeoutMs });
  };

  return {
    ...reader,
    estimateBudget,
    sendAndConfirm,
    sendSigned,
    confirm,
    airdrop: async (address, lamports) => {
      if (!isLoopback(options.rpcUrl))
        throw new ChainError('NOT_LOCAL', 'Airdrops are only available on the local chain');
      const { lastValidBlockHeight } = await getLatestBlockhash();
      const signature = await rpcCall('requestAirdrop', () =>
        rpc.requestAirdrop(toKey(address), toLamports(lamports), { commitment: COMMITMENT }).send(),
      );
      return confirm({ signature, lastValidBlockHeight }, { timeoutMs: 30_000 });
    },
  };
};
