// The daily settlement of one (game, UTC day) (docs/settlement.md): freeze and persist the intent once, hand
// the frozen players to the coin emission, pay every line exactly once, close it and refresh the game's figures.
// Any step may crash: a re-run finds the intent and finishes or replays it.
import { settings } from '../../core/config.js';
import { logger } from '../../core/logger.js';
import { countMetric, MetricUnit } from '../../core/metrics.js';
import { syncGameFigures } from '../figures.js';
import type { PriceSource } from '../price.js';
import { type Committed, commitRun } from './commitment.js';
import { type FreezeDeps, freezeSettlement } from './freeze.js';
import type { PrizeRef } from './keys.js';
import type { FrozenPlayer, Settlement } from './model.js';
import { type PayoutDeps, PayoutInProgress, payLine } from './payout.js';
import { noteLineFailure } from './payout-repository.js';
import { closeSettlement, getSettlement, markEmissionNotified, openRun, readPlayers } from './repository.js';

/**
 * The coin emission's port (the launcher/snapshots domains implement it): one call per settled (game, day) with
 * the frozen players of that day, after the intent is persisted. Idempotent on its side.
 */
export type SettleCoinEmission = (input: {
  gameId: string;
  day: string;
  players: Array<{ userId: string; wallet: string | null; points: number }>;
}) => Promise<unknown>;

export interface SettlementDeps extends FreezeDeps, PayoutDeps {
  chain: FreezeDeps['chain'] & PayoutDeps['chain'] & { getBalance: FreezeDeps['chain']['getBalance'] };
  price: PriceSource;
  /** The coin emission, when wired (optional until the emission domain provides it). */
  settleCoinEmission?: SettleCoinEmission | undefined;
}

export interface SettleOptions {
  /** Settle even before the day's settlement delay has passed (local trials: `npm run settle`). */
  force?: boolean;
}

/** When a UTC day may settle: its end plus SETTLEMENT_DELAY_HOURS. */
export const settlesAt = (day: string, delayHours = settings().SETTLEMENT_DELAY_HOURS): Date =>
  new Date(Date.parse(`${day}T00:00:00.000Z`) + 86_400_000 + delayHours * 3_600_000);

export type SettleOutcome =
  | { status: 'notDue'; settlesAt: string }
  | { status: 'settled'; replayed: boolean; settlement: Settlement };

const MAX_FREEZES = 4;

/** A run of a game's settlement machinery: a UTC day, or a tournament period's prizes (`prize`). */
export interface RunRef {
  gameId: string;
  day: string;
  prize?: PrizeRef | undefined;
}

/** Freezes a run and persists its intent; false when another run persisted it first or another is open. */
export type Freeze = () => Promise<boolean>;

/**
 * The persisted intent of a run, freezing it first if needed. A game pays one run at a time (a day's carries are
 * read after the last run wrote them): an open run of the game is finished first.
 */
export const intentOf = async (run: RunRef, freeze: Freeze, deps: SettlementDeps): Promise<Settlement> => {
  for (let attempt = 0; attempt < MAX_FREEZES; attempt++) {
    const existing = await getSettlement(run.gameId, run.day, run.prize);
    if (existing) return existing;
    const open = await openRun(run.gameId);
    if (open && !sameRun(open, run)) {
      await finish(await required({ gameId: run.gameId, ...open }), deps);
      continue;
    }
    if (await freeze()) continue;
  }
  return required(run);
};

const sameRun = (a: Omit<RunRef, 'gameId'>, b: Omit<RunRef, 'gameId'>) =>
  a.prize || b.prize
    ? a.prize?.tournamentId === b.prize?.tournamentId && a.prize?.periodId === b.prize?.periodId
    : a.day === b.day;

const required = async (run: RunRef): Promise<Settlement> => {
  const settlement = await getSettlement(run.gameId, run.day, run.prize);
  if (!settlement)
    throw new Error(`Settlement ${run.gameId} ${run.prize?.periodId ?? run.day} could not be persisted`);
  return settlement;
};

/** Some lines are still unpaid after this run: the day stays open and the run is retried (SQS redelivers). */
export class PayoutsOutstanding extends Error {
  override readonly name = 'PayoutsOutstanding';
}

/**
 * Pay every line; one line's failure never stops the others. A failure is counted on the line (another run
 * holding it is not a failure), so a line that keeps failing is parked by a later run and the day closes.
 */
const payLines = async (settlement: Settlement, deps: SettlementDeps): Promise<Committed> => {
  const { gameId, day, prize } = settlement;
  // The statement is committed on chain before the first transfer (./commitment.ts); not committed, nothing is sent.
  const committed = await commitRun(settlement, deps);
  const withheld = committed.status === 'skipped' ? `not sent: ${committed.reason}` : undefined;
  const unpaid: Array<{ arcId: string; error: unknown }> = [];
  for (const line of settlement.lines) {
    try {
      await payLine(settlement, line, deps, withheld);
    } catch (error) {
      unpaid.push({ arcId: line.arcId, error });
      if (!(error instanceof PayoutInProgress)) {
        countMetric('PayoutLineFailures');
        const ref = { gameId, day, arcId: line.arcId, ...(prize ? { prize } : {}) };
        await noteLineFailure(ref, String(error), deps.now().toISOString());
      }
    }
  }
  if (unpaid.length === 0) return committed;
  logger.warn('settlement payouts outstanding', {
    gameId,
    day,
    unpaid: unpaid.map((u) => ({ arcId: u.arcId, error: String(u.error) })),
  });
  throw new PayoutsOutstanding(
    `${unpaid.length} of ${settlement.lines.length} payouts of ${gameId} ${prize?.periodId ?? day} are unpaid`,
    {
      cause: unpaid[0]?.error,
    },
  );
};

/** Emission, payouts and closing of a persisted settlement (each step idempotent). */
export const finish = async (settlement: Settlement, deps: SettlementDeps): Promise<Settlement> => {
  const { gameId, day, prize } = settlement;
  if (settlement.status === 'settled') return settlement;
  if (prize) return finishPrizes(settlement, deps);
  if (deps.settleCoinEmission && !settlement.emissionNotified) {
    const players: FrozenPlayer[] = await readPlayers(settlement);
    await deps.settleCoinEmission({ gameId, day, players });
    await markEmissionNotified(gameId, day, deps.now().toISOString());
  }
  const committed = await payLines(settlement, deps);
  await closeSettlement(settlement, committed, deps.now().toISOString());
  countMetric('SettlementsCompleted');
  // How long after its settlement time the day closed (a forced early settlement counts 0).
  const lag = Math.max(0, deps.now().getTime() - settlesAt(day).getTime()) / 1000;
  countMetric('SettlementLagSeconds', Math.round(lag), MetricUnit.Seconds);
  await syncGameFigures(gameId, deps);
  logger.info('settlement closed', {
    gameId,
    day,
    lines: settlement.lines.length,
    allocated: settlement.allocated,
  });
  return required({ gameId, day });
};

/** A prize run's payouts and closing (no emission, no settlement lag: its own metrics). */
const finishPrizes = async (settlement: Settlement, deps: SettlementDeps): Promise<Settlement> => {
  const committed = await payLines(settlement, deps);
  await closeSettlement(settlement, committed, deps.now().toISOString());
  countMetric('PrizeRunsCompleted');
  await syncGameFigures(settlement.gameId, deps);
  logger.info('prize run closed', {
    gameId: settlement.gameId,
    prize: settlement.prize,
    lines: settlement.lines.length,
    allocated: settlement.allocated,
  });
  return required(settlement);
};

/**
 * Settle (game, day) exactly once: the inputs are frozen and the allocation persisted before anything is sent,
 * each transfer recorded before it is sent; a re-run finishes what a crash left, or replays a settled day.
 */
export const settleGameDay = async (
  gameId: string,
  day: string,
  deps: SettlementDeps,
  options: SettleOptions = {},
): Promise<SettleOutcome> => {
  const existing = await getSettlement(gameId, day);
  if (existing?.status === 'settled') return { status: 'settled', replayed: true, settlement: existing };
  const due = settlesAt(day);
  if (!existing && !options.force && deps.now().getTime() < due.getTime())
    return { status: 'notDue', settlesAt: due.toISOString() };
  const run = { gameId, day };
  const settlement = await finish(
    existing ?? (await intentOf(run, () => freezeSettlement(gameId, day, deps), deps)),
    deps,
  );
  return { status: 'settled', replayed: false, settlement };
};
