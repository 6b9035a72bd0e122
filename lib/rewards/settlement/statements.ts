// The public reads of payout runs (./contracts.ts): what anyone needs to verify a run (docs/provable-payouts.md).
import { errors } from '../../core/errors.js';
import { getGame } from '../../games/index.js';
import type { CommitmentRecord } from './commitment-repository.js';
import type { PrizeRef } from './keys.js';
import type { PayoutLine } from './model.js';
import type { PayoutRecord } from './repository.js';
import { lineProof, runName } from './statement.js';
import { commitmentsOf, type RunHeader, runPartition, runRecords, runsPage } from './statement-reads.js';

/**
 * `read`'s answer once the game is known to exist: both in one wave, an unknown game's 404 before whatever the
 * read found (or did not).
 */
const forGame = async <T>(gameId: string, read: Promise<T>): Promise<T> => {
  const [game, value] = await Promise.allSettled([getGame(gameId), read]);
  if (game.status === 'rejected') throw game.reason;
  if (!game.value) throw errors.notFound('Game');
  if (value.status === 'rejected') throw value.reason;
  return value.value;
};

const runFields = (run: RunHeader) => ({
  gameId: run.gameId,
  run: runName(run),
  kind: run.prize ? ('prize' as const) : ('day' as const),
  day: run.day,
  tournamentId: run.prize?.tournamentId ?? null,
  periodId: run.prize?.periodId ?? null,
  status: run.status,
  frozenAt: run.frozenAt,
  settledAt: run.settledAt ?? null,
  vaultAddress: run.vaultAddress ?? null,
  root: run.statement?.root ?? null,
});

const commitmentView = (record: CommitmentRecord | undefined) =>
  record
    ? {
        status: record.status,
        signature: record.signature ?? null,
        memo: record.memo,
        feeLamports: record.fee ?? null,
        reason: record.reason ?? null,
      }
    : null;

const payoutView = (line: Pick<PayoutLine, 'arcId'>, record: PayoutRecord | undefined) => ({
  arcId: line.arcId,
  status: record?.status ?? ('pending' as const),
  signature: record?.status === 'confirmed' ? (record.signature ?? null) : null,
  sentLamports: record?.status === 'confirmed' ? record.send : '0',
  feeLamports: record?.status === 'confirmed' ? record.fee : '0',
  reason: record?.status === 'carried' ? (record.carryReason ?? null) : null,
});

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const PERIOD = /^[^#]{1,40}$/;

/** A page of a game's runs, newest first (days, or one tournament's prize runs). */
export const listStatements = async (
  gameId: string,
  query: { tournamentId?: string | undefined; limit: number; cursor?: string | undefined },
) => {
  if (query.cursor !== undefined && !(query.tournamentId ? PERIOD : DAY).test(query.cursor))
    throw errors.validation('Invalid cursor', [{ path: 'cursor', message: 'not a cursor of this listing' }]);
  const page = await forGame(
    gameId,
    runsPage(gameId, { tournamentId: query.tournamentId, after: query.cursor, limit: query.limit }),
  );
  const commitments = await commitmentsOf(page.runs.filter((run) => run.statement));
  return {
    data: page.runs.map((run) => {
      const commitment = commitments.get(runPartition(run));
      return {
        ...runFields(run),
        allocatedLamports: run.allocated,
        commitment: commitment
          ? { status: commitment.status, signature: commitment.signature ?? null }
          : null,
      };
    }),
    meta: { limit: query.limit, nextCursor: page.last ?? null },
  };
};

const published = async (gameId: string, day: string, prize?: PrizeRef) => {
  const records = await runRecords({ gameId, day, prize });
  if (!records) throw errors.notFound(prize ? 'Prize run' : 'Settlement');
  return records;
};

const runView = (records: Awaited<ReturnType<typeof published>>) => {
  const { intent, statement, commitment, payouts } = records;
  const byArc = new Map(payouts.map((p) => [p.arcId, p]));
  return {
    ...runFields(intent),
    statement: statement?.statement ?? null,
    commitment: commitmentView(commitment),
    payouts: (statement?.statement.lines ?? intent.lines).map((line) =>
      payoutView(line, byArc.get(line.arcId)),
    ),
  };
};

const lineView = async (records: Awaited<ReturnType<typeof published>>, arcId: string) => {
  const { intent, statement, commitment, payouts } = records;
  const proved = statement && (await lineProof(statement.statement, arcId));
  if (!proved) throw errors.notFound('Line');
  return {
    ...runFields(intent),
    root: proved.root,
    line: proved.line,
    leafIndex: proved.leafIndex,
    proof: proved.proof,
    payout: payoutView(
      proved.line,
      payouts.find((p) => p.arcId === arcId),
    ),
    commitment: commitmentView(commitment),
  };
};

/** A daily run's statement, commitment and payouts. */
export const dayRun = async (gameId: string, day: string) => {
  return runView(await forGame(gameId, published(gameId, day)));
};

/** A recipient's line of a daily run, with its proof. */
export const dayRunLine = async (gameId: string, day: string, arcId: string) => {
  return lineView(await forGame(gameId, published(gameId, day)), arcId);
};

// A prize run's records are keyed by its tournament and period alone (keys.ts): no day needed to find them.

/** A prize run's statement, commitment and payouts. */
export const prizeRun = async (gameId: string, prize: PrizeRef) => {
  return runView(await forGame(gameId, published(gameId, '', prize)));
};

/** A recipient's line of a prize run, with its proof. */
export const prizeRunLine = async (gameId: string, prize: PrizeRef, arcId: string) => {
  return lineView(await forGame(gameId, published(gameId, '', prize)), arcId);
};
