// A run's commitment (docs/provable-payouts.md): before its first transfer, the game's vault signs one transaction
// whose memo carries the statement's merkle root, `arcadia:statement:v1:<gameId>:<run>:<root>`. The root is fixed
// on the intent before anything is sent, so a crash or a retry can only send the same memo again; and as with a
// payout, the signature is recorded before sending and a retry reads its fate first, so at most one lands.
//
// The vault pays its fee out of the pool (booked as allocated and as a fee). A pool that can't pay it (less than
// COMMITMENT_MAX_FEE above the vault's reserve) commits nothing, and then sends nothing: each line carries over.
import { type Chain, signatureFate } from '../../chain/index.js';
import { countMetric } from '../../core/metrics.js';
import { buildCommitment, poolBooks, poolCommitmentWrites, vaultSigner } from '../payout.js';
import {
  type CommitmentRecord,
  confirmCommitment,
  ensureCommitment,
  getCommitment,
  recordCommitmentSignature,
  skipCommitment,
} from './commitment-repository.js';
import type { Settlement } from './model.js';
import { PayoutInProgress } from './payout.js';
import { runName, statementMemo } from './statement.js';

/** The most the commitment may pay in fees (lamports): the signature's 5,000 and a priority bid. */
export const COMMITMENT_MAX_FEE = 50_000n;

export interface CommitDeps {
  chain: Pick<
    Chain,
    | 'estimateBudget'
    | 'sendAndConfirm'
    | 'confirm'
    | 'getSignatureStatus'
    | 'getBlockHeight'
    | 'getMinimumBalanceForRentExemption'
  >;
  now: () => Date;
  confirmTimeoutMs?: number;
}

/** Where a run's commitment ended: sent and confirmed, not sent (why; the run sends nothing), or none (no statement). */
export type Committed =
  | { status: 'confirmed'; signature: string }
  | { status: 'skipped'; reason: string }
  | { status: 'none' };

const outcome = (record: CommitmentRecord): Committed | undefined => {
  if (record.status === 'confirmed' && record.signature)
    return { status: 'confirmed', signature: record.signature };
  if (record.status === 'skipped') return { status: 'skipped', reason: record.reason ?? 'not sent' };
  return undefined;
};

/** The commitment landed as `signature`: confirmed with its recorded fee booked (once; a concurrent run may win). */
const book = async (settlement: Settlement, signature: string, deps: CommitDeps): Promise<Committed> => {
  const record = await getCommitment(settlement);
  const fee = BigInt(record?.fee ?? 0);
  const now = deps.now().toISOString();
  if (
    await confirmCommitment(settlement, signature, poolCommitmentWrites(settlement.gameId, fee, now), now)
  ) {
    countMetric('StatementsCommitted');
    return { status: 'confirmed', signature };
  }
  const after = await getCommitment(settlement);
  const done = after && outcome(after);
  if (!done)
    throw new PayoutInProgress(`The commitment of ${settlement.gameId} ${runName(settlement)} moved on`);
  return done;
};

/** Whether the pool can pay the commitment's fee without touching the vault's reserve or anyone's lamports. */
const affordable = async (settlement: Settlement, deps: CommitDeps): Promise<boolean> => {
  const [books, reserve] = await Promise.all([
    poolBooks(settlement.gameId),
    deps.chain.getMinimumBalanceForRentExemption(0),
  ]);
  return books !== undefined && books.undistributed - reserve >= COMMITMENT_MAX_FEE;
};

const send = async (settlement: Settlement, memo: string, previous: string | undefined, deps: CommitDeps) => {
  const vault = await vaultSigner(settlement.gameId);
  const plan = buildCommitment({ vault, memo });
  const budget = await deps.chain.estimateBudget(plan, { maxFeeLamports: COMMITMENT_MAX_FEE });
  const signature = await deps.chain.sendAndConfirm(plan, {
    budget,
    timeoutMs: deps.confirmTimeoutMs ?? 20_000,
    onSent: async (sent) => {
      if (!(await recordCommitmentSignature(settlement, previous, sent, deps.now().toISOString())))
        throw new PayoutInProgress(`Another run is committing ${settlement.gameId} ${runName(settlement)}`);
    },
  });
  return book(settlement, signature, deps);
};

/**
 * Commit the run's statement on chain, exactly once, before any of its transfers: returns when the commitment is
 * confirmed (or was not sent, and why); throws while a sent one may still land or another run holds it.
 */
export const commitRun = async (settlement: Settlement, deps: CommitDeps): Promise<Committed> => {
  if (!settlement.statement) return { status: 'none' };
  const memo = statementMemo(settlement.gameId, runName(settlement), settlement.statement.root);
  const now = deps.now().toISOString();
  const record = await ensureCommitment(settlement, { root: settlement.statement.root, memo }, now);
  const done = outcome(record);
  if (done) return done;
  const { signature } = record;
  if (signature) {
    const where = await signatureFate(deps.chain, {
      signature,
      lastValidBlockHeight: record.lastValidBlockHeight ?? 0,
    });
    if (where.kind === 'landed') return book(settlement, signature, deps);
    if (where.kind === 'pending') {
      const landed = await deps.chain.confirm(
        { signature, lastValidBlockHeight: record.lastValidBlockHeight ?? 0 },
        { timeoutMs: deps.confirmTimeoutMs ?? 20_000 },
      );
      return book(settlement, landed, deps);
    }
    // Expired or failed: it never lands; the same memo goes again over it.
    return send(settlement, memo, signature, deps);
  }
  const skip = async (reason: string): Promise<Committed> => {
    if (await skipCommitment(settlement, reason, now)) {
      countMetric('StatementsUncommitted');
      return { status: 'skipped', reason };
    }
    return commitRun(settlement, deps);
  };
  if (settlement.lines.length === 0) return skip('the run pays no one');
  if (!(await affordable(settlement, deps)))
    return skip(
      `the pool cannot pay the commitment's fee (up to ${COMMITMENT_MAX_FEE} lamports) above its reserve`,
    );
  return send(settlement, memo, undefined, deps);
};
