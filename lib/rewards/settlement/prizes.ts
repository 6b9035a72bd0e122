// A tournament period's prize run (docs/tournaments.md, "Prizes"): the daily settlement's machinery with another
// freeze. At close the period's board is frozen down to the last paid rank, the pot taken from the game's rewards
// pool (the studio's share of its distributable lamports, from the pool's books, never from the vault's balance)
// and from the studio's deposits into the period (its fund, recorded when each deposit landed), and the prize
// table allocated; the intent, the pool's allocation and the `tournament.period.ended` event commit
// in one transaction before anything is sent; then each line is paid exactly once like a day's (./payout.ts).

import { outboxItem } from '../../outbox/index.js';
import { walletAddresses } from '../../user/index.js';
import { fundFreezeWrite, periodFund } from '../deposit-repository.js';
import { poolAllocationWrite, poolBooks } from '../payout.js';
import { utcDay } from '../pool-days.js';
import { prizesTakenOn } from '../pool-repository.js';
import { allocatePrizes, prizeDayBudget } from './allocation.js';
import { TRANSFER_FEE } from './freeze.js';
import type { PrizeRef } from './keys.js';
import type { PrizeRun, Settlement } from './model.js';
import { carriedOf, getSettlement, persistIntent, statementWrite } from './repository.js';
import { finish, intentOf, type SettlementDeps } from './settle.js';
import { poolFigures, prizeStatement, statementRoot } from './statement.js';

/** One standing of a period's board, in rank order. */
export interface PeriodStanding {
  arcId: string;
  points: number;
}

/**
 * Port: the first `limit` standings (points > 0) of a tournament period's board in rank order (the play domain's
 * rank index, wired by the function file).
 */
export type PeriodStandings = (gameId: string, prize: PrizeRef, limit: number) => Promise<PeriodStanding[]>;

/** What closing a period needs of its tournament (the tournaments domain's definition, read at close). */
export interface PrizeInput extends PrizeRef {
  gameId: string;
  endsAt: string;
  /** Rank ranges → basis points of the pot for each rank. */
  table: ReadonlyArray<{ fromRank: number; toRank: number; bps: number }>;
  /** The studio's share of the pool's distributable lamports per period (basis points). */
  poolBps: number;
  /** The tournament was cancelled before the period ended: the board is frozen, nothing is paid. */
  voided?: 'cancelled' | undefined;
}

export interface PrizeDeps extends SettlementDeps {
  periodStandings: PeriodStandings;
}

const dayOf = (iso: string) => iso.slice(0, 10);

/** The last rank a table pays (0: it pays nothing). */
const lastPaidRank = (input: PrizeInput) =>
  input.voided ? 0 : Math.max(0, ...input.table.map((r) => r.toRank));

/** Freeze the period and persist its prize run; false when another run persisted it or another run is open. */
const freezePrizes = async (input: PrizeInput, deps: PrizeDeps): Promise<boolean> => {
  const { gameId } = input;
  const prize = { tournamentId: input.tournamentId, periodId: input.periodId };
  const last = lastPaidRank(input);
  const ranked = last > 0 ? await deps.periodStandings(gameId, prize, last) : [];
  const now = deps.now().toISOString();
  const [books, fund, takenToday] = await Promise.all([
    poolBooks(gameId),
    periodFund({ gameId, ...prize }),
    prizesTakenOn(gameId, utcDay(now)),
  ]);
  const wallets = await walletAddresses(ranked.map((s) => s.arcId));
  const [carries, rentExemptMinimum, balances] = await Promise.all([
    carriedOf(
      gameId,
      ranked.map((s) => s.arcId),
    ),
    deps.chain.getMinimumBalanceForRentExemption(0),
    Promise.all(
      [...wallets].map(
        async ([id, address]) => [id, { address, balance: await deps.chain.getBalance(address) }] as const,
      ),
    ),
  ]);
  const undistributed = books?.undistributed ?? 0n;
  const day = prizeDayBudget(
    undistributed > rentExemptMinimum ? undistributed - rentExemptMinimum : 0n,
    takenToday,
  );
  const allocationInput = {
    undistributed,
    vaultReserve: rentExemptMinimum,
    poolBps: input.voided || !books ? 0 : input.poolBps,
    poolRoom: day.room,
    // A voided period pays nothing: its fund goes back to the pool.
    fund: input.voided || !books ? 0n : fund.depositedLamports,
    earmarked: books?.earmarked ?? 0n,
    table: input.table,
    ranked,
    carried: carries.carried,
    wallets: new Map(balances),
    rentExemptMinimum,
    fee: TRANSFER_FEE,
  };
  const allocation = allocatePrizes(allocationInput);
  const statement = prizeStatement(gameId, prize, poolFigures(books), allocationInput, allocation.lines);
  const root = await statementRoot(statement);
  const prizeOf = new Map(allocation.lines.map((l) => [l.arcId, l.share]));
  const run: PrizeRun = {
    ...prize,
    endsAt: input.endsAt,
    poolBps: input.poolBps,
    potLamports: allocation.pot.toString(),
    fundLamports: fund.depositedLamports.toString(),
    fundUsedLamports: allocation.fundUsed.toString(),
    poolTakenLamports: allocation.poolTaken.toString(),
    // The take is booked on the pool's day conditional on this room (persistIntent): never past the day's bound.
    dayRoomLamports: day.room.toString(),
    dayTakenBeforeLamports: takenToday.toString(),
    results: ranked.map((s, i) => ({ rank: i + 1, arcId: s.arcId, points: s.points })),
    ...(input.voided ? { voided: input.voided } : {}),
  };
  const settlement: Settlement = {
    gameId,
    day: dayOf(input.endsAt),
    prize: run,
    status: 'paying',
    players: ranked.length,
    freezeId: 'prize',
    chunks: 0,
    undistributedBefore: (books?.undistributed ?? 0n).toString(),
    allocated: allocation.allocated.toString(),
    creatorPart: '0',
    playerPart: allocation.allocated.toString(),
    vaultAddress: books?.vaultAddress ?? null,
    lines: allocation.lines,
    statement: { version: statement.version, root },
    emissionNotified: true,
    frozenAt: now,
  };
  const event = outboxItem('tournament.period.ended', gameId, {
    ...prize,
    endsAt: input.endsAt,
    potLamports: run.potLamports,
    results: run.results.map((r) => ({ ...r, lamports: prizeOf.get(r.arcId) ?? '0' })),
    voided: input.voided ?? null,
  });
  const deposited = fund.depositedLamports;
  const released = deposited - allocation.fundUsed;
  return persistIntent(settlement, carries, [
    statementWrite(settlement, statement, root),
    ...(books && (allocation.allocated > 0n || deposited > 0n)
      ? [poolAllocationWrite(gameId, books.allocated, allocation.allocated, now, deposited)]
      : []),
    // Frozen with the intent: a deposit landing later is the pool's, never a second pot.
    fundFreezeWrite({ gameId, ...prize }, deposited, allocation.fundUsed, released, now),
    event,
  ]);
};

/**
 * Pay a period's prizes exactly once: frozen and persisted once (a re-run finds the intent), each line paid or
 * carried once, closed with `tournament.period.paid`. Safe to call again at any point.
 */
export const settlePrizeRun = async (
  input: PrizeInput,
  deps: PrizeDeps,
): Promise<{ replayed: boolean; settlement: Settlement }> => {
  const prize = { tournamentId: input.tournamentId, periodId: input.periodId };
  const run = { gameId: input.gameId, day: dayOf(input.endsAt), prize };
  const existing = await getSettlement(run.gameId, run.day, prize);
  if (existing?.status === 'settled') return { replayed: true, settlement: existing };
  const settlement = await finish(
    existing ?? (await intentOf(run, () => freezePrizes(input, deps), deps)),
    deps,
  );
  return { replayed: false, settlement };
};

/** A period's prize run as recorded (its intent: the frozen results and lines), if it ran. */
export const prizeRunOf = (gameId: string, prize: PrizeRef & { endsAt: string }) =>
  getSettlement(gameId, dayOf(prize.endsAt), { tournamentId: prize.tournamentId, periodId: prize.periodId });
