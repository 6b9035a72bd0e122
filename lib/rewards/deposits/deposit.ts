// A studio's deposit into a tournament period's prize fund (docs/tournaments.md, "Funding"): SOL from the
// depositor's embedded wallet to the game's pool vault, sent like a purchase (./inbound.ts: intent first, the
// signature recorded before sending, a retry with the same key decides from the chain). When it lands the period's
// fund and the pool's books (inflow, earmarked) grow in one transaction; the period's prize run pays from it.
// The amount is always the intent's: what anyone else sends to the vault, with any memo, is never a deposit.
import { randomUUID } from 'node:crypto';
import { AppError } from '../../core/errors.js';
import { requireDelegated } from '../../user/index.js';
import {
  completeDeposit,
  type Deposit,
  type FundRef,
  failDeposit,
  getDeposit,
  periodFund,
  putDeposit,
  recordDepositSignature,
} from '../deposit-repository.js';
import {
  assertBalance,
  conflict,
  type InboundDeps,
  type InboundOps,
  resumeInbound,
  sendInbound,
  transferFailed,
} from '../inbound.js';
import { rewardsKeys } from '../keys.js';
import { LAMPORTS_PER_SOL } from '../model.js';
import { ensurePool } from '../pool-repository.js';
import { depositMemo } from '../vault.js';

/** The smallest deposit: well above a transfer's fee and the vault's rent-exempt minimum (0.01 SOL). */
export const MIN_DEPOSIT_LAMPORTS = LAMPORTS_PER_SOL / 100n;
/** The largest deposit (1,000,000 SOL): the books count lamports as DynamoDB numbers, exact below 2^53. */
export const MAX_DEPOSIT_LAMPORTS = 1_000_000n * LAMPORTS_PER_SOL;

export interface DepositInput extends FundRef {
  lamports: bigint;
  idempotencyKey: string;
  /** The period's end: a deposit is sent before it, never after (a retry then fails it). */
  periodEndsAt: string;
}

export const periodEnded = () =>
  new AppError('TOURNAMENT_NOT_RUNNING', 'The period has ended: deposits fund a period before its end');

const WHAT = 'this deposit';

export const depositView = (d: Deposit, replayed: boolean) => ({
  depositId: d.depositId,
  status: d.status === 'completed' ? ('completed' as const) : ('pending' as const),
  tournamentId: d.tournamentId,
  periodId: d.periodId,
  lamports: d.lamports,
  fromWallet: d.walletAddress,
  vaultAddress: d.vaultAddress,
  signature: d.signature ?? null,
  credited: d.credited ?? null,
  createdAt: d.createdAt,
  completedAt: d.completedAt ?? null,
  replayed,
});
export type DepositView = ReturnType<typeof depositView>;

const failedError = transferFailed('deposit', 'deposit again');

const depositOps = (deps: InboundDeps): InboundOps<Deposit, DepositView> => ({
  memo: (d) => depositMemo(d.depositId),
  recordSignature: (d, prior, sent) => recordDepositSignature(d, prior, sent, deps.now().toISOString()),
  finish: async (d, signature, replayed) => {
    const now = deps.now().toISOString();
    const credited = await completeDeposit(d, signature, now);
    if (credited)
      return depositView({ ...d, status: 'completed', signature, credited, completedAt: now }, replayed);
    const done = await getDeposit(d);
    if (done?.status !== 'completed')
      throw conflict('Another request is completing this deposit; retry with the same idempotencyKey');
    return depositView(done, replayed);
  },
  fail: (d, seen, reason) => failDeposit(d, seen, reason, deps.now().toISOString()),
  view: depositView,
  busy: 'Another request is completing this deposit; retry with the same idempotencyKey',
  failed: failedError,
});

/**
 * Deposit into a period's prize fund, idempotent per depositor and key. A known key resumes its deposit (replay,
 * confirm what was sent, or send again when nothing can land); a new one runs `beforeCreate` (the caller's checks:
 * the period is still open and will close) before its intent is written.
 */
export const depositToPeriod = async (
  arcId: string,
  input: DepositInput,
  beforeCreate: () => Promise<void>,
  deps: InboundDeps,
  /** The key's deposit as the caller read it (`knownDeposit`); read here when not given. */
  known?: Deposit | undefined | null,
): Promise<{ created: boolean; deposit: DepositView }> => {
  const key = rewardsKeys.deposit(input.gameId, input.tournamentId, arcId, input.idempotencyKey);
  const existing = known === null ? undefined : (known ?? (await getDeposit(key)));
  if (existing) return { created: false, deposit: await resume(existing, input, deps) };
  await beforeCreate();
  // Fresh from the identity provider: no embedded wallet is 400, delegation off 403, before anything is sent.
  const wallet = requireDelegated(await deps.loadWallet(arcId, { fresh: true }));
  await assertBalance(deps, wallet.address, input.lamports, WHAT);
  const now = deps.now().toISOString();
  const pool = await ensurePool(input.gameId, now);
  const deposit: Deposit = {
    ...key,
    depositId: randomUUID(),
    idempotencyKey: input.idempotencyKey,
    arcId,
    gameId: input.gameId,
    tournamentId: input.tournamentId,
    periodId: input.periodId,
    lamports: input.lamports.toString(),
    walletAddress: wallet.address,
    vaultAddress: pool.vaultAddress,
    status: 'pending',
    createdAt: now,
    updatedAt: now,
  };
  if (!(await putDeposit(deposit))) {
    const concurrent = await getDeposit(key);
    if (!concurrent)
      throw conflict('Another request is creating this deposit; retry with the same idempotencyKey');
    return { created: false, deposit: await resume(concurrent, input, deps) };
  }
  return { created: true, deposit: await sendInbound(deposit, undefined, depositOps(deps), deps, false) };
};

/** A caller's deposit by key, if any: read once by the caller, which passes it on to `depositToPeriod`. */
export const knownDeposit = (ref: Omit<FundRef, 'periodId'>, arcId: string, idempotencyKey: string) =>
  getDeposit(rewardsKeys.deposit(ref.gameId, ref.tournamentId, arcId, idempotencyKey));

/** A retry with a known key: the same deposit (else 409), replayed, refused if it failed, or resumed. */
const resume = async (existing: Deposit, input: DepositInput, deps: InboundDeps): Promise<DepositView> => {
  if (existing.periodId !== input.periodId || existing.lamports !== input.lamports.toString())
    throw conflict('This idempotencyKey was already used for a different deposit');
  if (existing.status === 'completed') return depositView(existing, true);
  if (existing.status === 'failed') throw failedError(existing.failureReason);
  const ops = depositOps(deps);
  return resumeInbound(existing, ops, deps, WHAT, async (d) => {
    if (deps.now().getTime() < Date.parse(input.periodEndsAt)) return;
    await ops.fail(d, d.signature, 'the period ended before the deposit was sent');
    throw periodEnded();
  });
};

/** A period's prize fund as the API shows it. */
export const periodFundView = async (ref: FundRef) => {
  const fund = await periodFund(ref);
  return {
    depositedLamports: fund.depositedLamports.toString(),
    deposits: fund.deposits,
    frozenAt: fund.frozenAt,
    usedLamports: fund.usedLamports.toString(),
    releasedLamports: fund.releasedLamports.toString(),
  };
};
