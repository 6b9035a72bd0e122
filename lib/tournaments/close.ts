// Closing tournament periods (docs/tournaments.md, "Prizes"): a schedule finds the periods whose close time (end
// plus payout delay) has passed in the sparse byPeriodClose index and queues each on the settlement queue; the
// settlement worker closes it: the board frozen and the prize table paid by the rewards domain's prize run (exactly
// once, a crash or a chain fault finished by the next delivery), then the period record leaves the index.
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure } from '../adapters/dynamodb.js';
import { logger } from '../core/logger.js';
import { countMetricBy } from '../core/metrics.js';
import { CLOSE_SHARDS, periodBoard, playTable, rankReads, tournamentPlayKeys } from '../play/index.js';
import {
  type PeriodCloseMessage,
  type PeriodStandings,
  type PrizeDeps,
  type PrizeInput,
  settlePrizeRun,
} from '../rewards/index.js';
import type { Tournament } from './model.js';
import { getTournament } from './repository.js';
import { type Period, periodNamed } from './schedule.js';

/** A queued close is queued again this long after, while its period is still open (a lost or failed run). */
export const REQUEUE_SECONDS = 600;
/** Periods read per index partition and run: a run queues at most this many × CLOSE_SHARDS. */
const PER_SHARD = 500;

/** The period records' keys: `TPERIOD#<gameId>#<tournamentId>` / `<periodId>`. */
const refOf = (pk: string, sk: string): PeriodCloseMessage | undefined => {
  const [kind, gameId, tournamentId, ...rest] = pk.split('#');
  return kind === 'TPERIOD' && gameId && tournamentId && rest.length === 0
    ? { gameId, tournamentId, periodId: sk }
    : undefined;
};

/** The periods whose close time has passed (one Query per index partition). */
export const duePeriodCloses = async (now: Date): Promise<PeriodCloseMessage[]> => {
  const pages = await Promise.all(
    Array.from({ length: CLOSE_SHARDS }, (_, shard) =>
      dynamo().send(
        new QueryCommand({
          TableName: playTable(),
          IndexName: 'byPeriodClose',
          KeyConditionExpression: 'closeDue = :due AND closeAt <= :now',
          ExpressionAttributeValues: { ':due': `CLOSE#${shard}`, ':now': now.toISOString() },
          Limit: PER_SHARD,
        }),
      ),
    ),
  );
  return pages.flatMap((page) =>
    (page.Items ?? []).flatMap((item) => {
      const ref = refOf(String(item.pk), String(item.sk));
      return ref ? [ref] : [];
    }),
  );
};

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
  await Promise.all(
    due.map(async (m) => {
      try {
        await dynamo().send(
          new UpdateCommand({
            TableName: playTable(),
            Key: tournamentPlayKeys.period(m.gameId, m.tournamentId, m.periodId),
            UpdateExpression: 'SET closeAt = :later',
            ConditionExpression: 'attribute_exists(closeDue)',
            ExpressionAttributeValues: { ':later': later },
          }),
        );
      } catch (error) {
        // Closed meanwhile: it left the index.
        if (!isConditionFailure(error)) throw error;
      }
    }),
  );
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

/** The period record leaves the close index, with when it closed and its pot (the periods list shows them). */
const markClosed = async (m: PeriodCloseMessage, closedAt: string, potLamports: string) => {
  await dynamo().send(
    new UpdateCommand({
      TableName: playTable(),
      Key: tournamentPlayKeys.period(m.gameId, m.tournamentId, m.periodId),
      UpdateExpression: 'SET closedAt = :at, potLamports = :pot REMOVE closeDue, closeAt',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':at': closedAt, ':pot': potLamports },
    }),
  );
};

/** A period record naming no period of a tournament leaves the close index (never queued again). */
const dropClose = async (m: PeriodCloseMessage) => {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: playTable(),
        Key: tournamentPlayKeys.period(m.gameId, m.tournamentId, m.periodId),
        UpdateExpression: 'REMOVE closeDue, closeAt',
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};

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
