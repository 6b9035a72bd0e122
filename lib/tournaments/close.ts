// Closing tournament periods (docs/tournaments.md, "Prizes"): a schedule finds the periods whose close time (end
// plus payout delay) has passed in the sparse byPeriodClose index and queues each on the settlement queue; the
// settlement worker closes it: the board frozen and the prize table paid by the rewards domain's prize run (exactly
// once, a crash or a chain fault finished by the next delivery), then the period record leaves the index.
import { isConditionFailure } from '../adapters/dynamodb.js';
import { logger } from '../core/logger.js';
import { countMetricBy } from '../core/metrics.js';
import { periodBoard, rankReads } from '../play/index.js';
import {
  type PeriodCloseMessage,
  type PeriodStandings,
  type PrizeDeps,
  type PrizeInput,
  settlePrizeRun,
} from '../rewards/index.js';
import { dropClose, duePeriodCloses, markClosed, postponeClose } from './close-repository.js';
import type { Tournament } from './model.js';
import { getTournament } from './repository.js';
import { type Period, periodNamed } from './schedule.js';

export { duePeriodCloses } from './close-repository.js';

/** A queued close is queued again this long after, while its period is still open (a lost or failed run). */
export const REQUEUE_SECONDS = 600;

/**
 * Queue the due closes on the settlement queue, then move each one's close time REQUEUE_SECONDS ahead (still in
 * the index: a run that is lost or keeps failing is queued again then; the worker's retries come first).
 */
export const scheduleTournamentCloses = async (deps: {
  send: (bodies: readonly string[]) => Promise<number>;
  now: () => Date;
}): Promise<{ queued: number }> => {
  countMetricBy('ScheduleRuns', { schedule: 'tournament-closes' });
  const now = deps.now();
  const due = await duePeriodCloses(now);
  if (due.length === 0) return { queued: 0 };
  await deps.send(due.map((m) => JSON.stringify(m)));
  const later = new Date(now.getTime() + REQUEUE_SECONDS * 1000).toISOString();
  await Promise.all(due.map((m) => postponeClose(m, later)));
  logger.info('tournament periods queued to close', { queued: due.length });
  return { queued: due.length };
};

/** A period's board, first `limit` standings in rank order (the prize run's port). */
export const periodStandings: PeriodStandings = async (gameId, prize, limit) =>
  (
    await rankReads.pageOf(
      periodBoard(gameId, { tournamentId: prize.tournamentId, period: prize.periodId }),
      0,
      limit,
    )
  )
    .filter((s) => s.points > 0)
    .map((s) => ({ arcId: s.arcId, points: s.points }));

/** What the prize run needs of a period: its prize table and funding, void when cancelled before its end. */
export const prizeInputOf = (t: Tournament, p: Period): PrizeInput => ({
  gameId: t.gameId,
  tournamentId: t.tournamentId,
  periodId: p.id,
  endsAt: p.endsAt,
  table: t.prizes,
  poolBps: t.prizePool?.rewardsPoolBps ?? 0,
  voided:
    t.status === 'cancelled' && Date.parse(t.updatedAt) < Date.parse(p.endsAt) ? 'cancelled' : undefined,
});

export type CloseOutcome = 'closed' | 'notDue' | 'gone';

/**
 * Close one period: its prize run settled (frozen once, each prize paid once), then the record marked closed. A
 * crash anywhere is finished by the next delivery; a close before its time does nothing.
 */
export const closePeriod = async (
  m: PeriodCloseMessage,
  deps: Omit<PrizeDeps, 'periodStandings'> & Partial<Pick<PrizeDeps, 'periodStandings'>>,
): Promise<CloseOutcome> => {
  const t = await getTournament(m.gameId, m.tournamentId);
  const p = t && periodNamed(t, m.periodId);
  if (!t || !p) {
    logger.warn('tournament period to close not found', { ...m });
    await dropClose(m);
    return 'gone';
  }
  const closesAt = Date.parse(p.endsAt) + t.payoutDelaySeconds * 1000;
  if (deps.now().getTime() < closesAt) return 'notDue';
  const { settlement } = await settlePrizeRun(prizeInputOf(t, p), {
    ...deps,
    periodStandings: deps.periodStandings ?? periodStandings,
  });
  try {
    await markClosed(
      m,
      settlement.settledAt ?? deps.now().toISOString(),
      settlement.prize?.potLamports ?? '0',
    );
  } catch (error) {
    // The record expired (retention) before its close: the run's records are the books.
    if (!isConditionFailure(error)) throw error;
  }
  return 'closed';
};
