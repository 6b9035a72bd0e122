// Paying a persisted settlement's lines from the game's vault, exactly once: each transfer's signature is
// recorded before it is sent; a re-run checks the chain for a recorded signature (landed → completes it, failed
// or expired unlanded → sends again over it, still valid → waits for it) and never sends twice. A transfer
// refused at preflight carries over at once; a line that fails MAX_LINE_FAILURES runs is parked (DLQ, carried).
import { type Chain, ChainError, signatureFate } from '../../chain/index.js';
import { logger } from '../../core/logger.js';
import { countMetric } from '../../core/metrics.js';
import { buildPayoutTransfer, poolPayoutWrites, vaultSigner } from '../payout.js';
import type { PriceSource } from '../price.js';
import { usdOf } from '../pricing.js';
import type { PayoutLine, Settlement } from './model.js';
import {
  type Completion,
  completePayout,
  ensurePayoutRecord,
  recordPayoutSignature,
} from './payout-repository.js';
import type { PayoutRecord } from './repository.js';
import { payoutMemo } from './statement.js';

export interface PayoutDeps {
  chain: Pick<
    Chain,
    | 'estimateBudget'
    | 'sendAndConfirm'
    | 'confirm'
    | 'getSignatureStatus'
    | 'getBlockHeight'
    | 'getMinimumBalanceForRentExemption'
    | 'getBalance'
  >;
  price: PriceSource;
  now: () => Date;
  /** Budget to send and confirm one transfer (ms). Default 20 000. */
  confirmTimeoutMs?: number;
  /** Hand a line that kept failing to the operator (the payout DLQ); its amount is then carried. */
  park: (record: PayoutRecord) => Promise<void>;
}

/** Runs a line may fail before it is parked: below the settlement queue's 5 receives, so the day still closes. */
export const MAX_LINE_FAILURES = 3;

/** Another run holds this line's transfer: the settlement is retried later (SQS redelivers). */
export class PayoutInProgress extends Error {
  override readonly name = 'PayoutInProgress';
}

/**
 * A line moved (sent, or carried) but its completion can't be booked as computed: the carry it consumed changed
 * under it. The run stops there, loudly (metric `PayoutsUnbooked`, its alarm, an error log); the line stays
 * pending, so the day stays open until an operator reconciles it (docs/operations.md).
 */
export class PayoutUnbooked extends Error {
  override readonly name = 'PayoutUnbooked';
}

const booked = (completion: Completion, record: PayoutRecord, moved: string) => {
  if (completion !== 'unbooked') return;
  countMetric('PayoutsUnbooked');
  logger.error('payout could not be booked: the carry its line consumed changed', {
    gameId: record.gameId,
    day: record.day,
    arcId: record.arcId,
    prize: record.prize,
    carriedIn: record.carriedIn,
    moved,
  });
  throw new PayoutUnbooked(
    `${record.arcId}'s line of ${record.gameId} ${record.prize?.periodId ?? record.day} ${moved}, but its carry changed: not booked`,
  );
};

const confirmed = async (record: PayoutRecord, signature: string, deps: PayoutDeps) => {
  const solUsdPrice = await deps.price.solUsd();
  const lamports = BigInt(record.send);
  const usd = usdOf(lamports, solUsdPrice);
  const now = deps.now().toISOString();
  const completion = await completePayout(
    record,
    { status: 'confirmed', signature, usd, solUsdPrice },
    0n,
    poolPayoutWrites(
      record.gameId,
      {
        lamports,
        fee: BigInt(record.fee),
        usdCents: Math.round(usd * 100),
        toPlayer: record.roles.includes('player'),
      },
      now,
    ),
    now,
  );
  booked(completion, record, `sent ${lamports} lamports (${signature})`);
  if (completion === 'done') countMetric('LamportsPaid', Number(lamports));
};

const carried = async (record: PayoutRecord, reason: string, deps: PayoutDeps) => {
  const completion = await completePayout(
    record,
    { status: 'carried', reason },
    BigInt(record.due),
    [],
    deps.now().toISOString(),
  );
  booked(completion, record, `carried ${record.due} lamports`);
  if (completion === 'done') countMetric('LamportsCarried', Number(record.due));
};

/** Where a recorded transfer stands: landed, never landing (send again), or still able to land. */
const fate = async (record: PayoutRecord & { signature: string }, deps: PayoutDeps) => {
  const where = await signatureFate(deps.chain, {
    signature: record.signature,
    lastValidBlockHeight: record.lastValidBlockHeight ?? 0,
  });
  if (where.kind === 'landed') return 'landed' as const;
  return where.kind === 'pending' ? ('inflight' as const) : ('dead' as const);
};

/**
 * The most a line's transfer may pay in fees: the fee frozen with it, plus what its amount holds above what it
 * must still send — a lamport to an existing account, the rent-exempt minimum to an empty one (a priority fee
 * never shrinks a transfer below what lets it land).
 */
const feeBound = async (record: PayoutRecord, deps: PayoutDeps): Promise<bigint> => {
  const [rent, balance] = await Promise.all([
    deps.chain.getMinimumBalanceForRentExemption(0),
    deps.chain.getBalance(String(record.wallet)),
  ]);
  const send = BigInt(record.send);
  const floor = balance > 0n ? 1n : rent;
  return BigInt(record.fee) + (send > floor ? send - floor : 0n);
};

/**
 * Send the line's transfer over `previous` (the signature recorded, if any), and complete it once confirmed. The
 * vault pays the fee out of the line's due: the budget is set first, then the transfer sends due − fee, and
 * both are recorded with the signature, so the books take what the chain charged.
 */
const send = async (record: PayoutRecord, previous: string | undefined, deps: PayoutDeps) => {
  const vault = await vaultSigner(record.gameId);
  const due = BigInt(record.send) + BigInt(record.fee);
  const transfer = (lamports: bigint) =>
    buildPayoutTransfer({
      vault,
      to: String(record.wallet),
      lamports,
      memo: payoutMemo(record.gameId, record.day, record.arcId, record.prize),
    });
  try {
    const budget = await deps.chain.estimateBudget(transfer(BigInt(record.send)), {
      maxFeeLamports: await feeBound(record, deps),
    });
    const lamports = due - budget.fee;
    const signature = await deps.chain.sendAndConfirm(transfer(lamports), {
      budget,
      timeoutMs: deps.confirmTimeoutMs ?? 20_000,
      onSent: async (sent) => {
        const recorded = { ...sent, send: lamports, fee: sent.fee };
        if (!(await recordPayoutSignature(record, previous, recorded, deps.now().toISOString())))
          throw new PayoutInProgress(
            `Another run is paying ${record.arcId} for ${record.gameId} ${record.prize ? `${record.prize.tournamentId} ${record.prize.periodId}` : record.day}`,
          );
      },
    });
    await confirmed({ ...record, send: lamports.toString(), fee: budget.fee.toString() }, signature, deps);
  } catch (error) {
    // Refused at preflight: the node did not forward it, so it never lands, and sending the same transfer again
    // is refused the same way (the recipient can't take it, or the vault can't pay it): what it owed carries over.
    // (`sendAndConfirm` records the signature before broadcasting, so a recorded signature proves nothing here.)
    if (error instanceof ChainError && error.code === 'SIMULATION_FAILED') {
      logger.warn('payout refused by the chain; carried over', {
        arcId: record.arcId,
        message: error.message,
      });
      await carried(record, `refused: ${error.message}`.slice(0, 500), deps);
      return;
    }
    throw error;
  }
};

/**
 * Pay (or carry) one line exactly once; throws while its transfer may still land or another run holds it.
 * `withheld`: the run may send nothing (its statement was not committed), so an unsent line carries, for that reason.
 */
export const payLine = async (
  settlement: Settlement,
  line: PayoutLine,
  deps: PayoutDeps,
  withheld?: string,
): Promise<void> => {
  const record = await ensurePayoutRecord(settlement, line, deps.now().toISOString());
  if (record.status !== 'pending') return;
  if (BigInt(record.send) === 0n) {
    await carried(record, record.wallet ? 'below what can land' : 'no wallet', deps);
    return;
  }
  const { signature } = record;
  if (withheld !== undefined && !signature) {
    await carried(record, withheld, deps);
    return;
  }
  if (signature) {
    const where = await fate({ ...record, signature }, deps);
    if (where === 'landed') return confirmed(record, signature, deps);
    if (where === 'inflight') {
      const done = await deps.chain.confirm(
        { signature, lastValidBlockHeight: record.lastValidBlockHeight ?? 0 },
        { timeoutMs: deps.confirmTimeoutMs ?? 20_000 },
      );
      return confirmed(record, done, deps);
    }
  }
  // Nothing of it can land any more: a line that kept failing stops here instead of holding its day.
  if ((record.failures ?? 0) >= MAX_LINE_FAILURES) return park(record, deps);
  await send(record, signature, deps);
};

/** Park a line: announced to the operator first (a crash after the carry would hide it), then carried. */
const park = async (record: PayoutRecord, deps: PayoutDeps) => {
  await deps.park(record);
  logger.error('payout parked after repeated failures; carried to the recipient', {
    gameId: record.gameId,
    day: record.day,
    arcId: record.arcId,
    failures: record.failures,
    lastError: record.lastError,
  });
  await carried(
    record,
    `parked after ${record.failures ?? 0} failed runs: ${record.lastError ?? 'unknown error'}`.slice(0, 500),
    deps,
  );
};
