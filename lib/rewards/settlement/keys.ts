import { settings } from '../../core/config.js';

/**
 * SettlementTable (SETTLEMENT_TABLE) keys. Access patterns:
 * - a settlement (game, UTC day), its intent:   pk=GAME#<gameId>            sk=DAY#<yyyy-mm-dd>
 *     the frozen inputs' digest and the allocation, written once (conditional) before anything is sent; a game's
 *     recent settlements: Query pk, begins_with(sk, 'DAY#'), descending.
 * - a game's open settlement:                    pk=GAME#<gameId>            sk=OPEN
 *     the day being paid; a game's days settle one at a time, so a day's carries are read after the last one's
 *     were written.
 * - a settlement's frozen players, in chunks:    pk=SETTLE#<gameId>#<day>    sk=PLAYERS#<freezeId>#<nnnnn>
 *     each freeze attempt writes its own chunks; the intent names the attempt it was computed from.
 * - a settlement's payout to one recipient:      pk=SETTLE#<gameId>#<day>    sk=PAY#<arcId>
 *     the transfer record (its signature and blockhash expiry recorded before it is sent); GSI byRecipient
 *     (recipient = <arcId>, recipientSort = <day>#<gameId>) lists a user's payouts, newest first.
 * - a run's statement (what it read and allocated, ./statement.ts): pk=SETTLE#<gameId>#<day>  sk=STATEMENT
 *     written in the intent's transaction; the intent carries its merkle root (`statement.root`).
 * - a run's commitment (./commitment.ts):       pk=SETTLE#<gameId>#<day>    sk=COMMITMENT
 *     the transaction whose memo carries the statement's root: its signature recorded before it is sent, as a
 *     payout's; `confirmed` (its fee booked on the pool) before the run's first transfer.
 * - a recipient's carry in a game:               pk=CARRY#<gameId>           sk=USER#<arcId>
 *     lamports owed that could not land yet (N).
 * - the version of a game's carries:             pk=GAME#<gameId>            sk=CARRIES
 *     `version` (N), added to by every write of one of the game's carries in the same transaction; a run's intent
 *     commits only over the version it read before reading the carries, so no carry is consumed twice.
 * - a tournament period's prize run (docs/tournaments.md), the same records under its own names: intent
 *   pk=GAME#<gameId> sk=PRIZE#<tournamentId>#<periodId>; payouts pk=SETTLE#<gameId>#T#<tournamentId>#<periodId>
 *   sk=PAY#<arcId> (recipientSort <day of the period's end>#<gameId>#T#<tournamentId>#<periodId>). It shares the
 *   game's open marker and carries with the daily settlement: a game pays one run at a time.
 * No TTL: financial records are kept.
 */
import type { PrizeRef } from './model.js';

export type { PrizeRef };

const runName = (day: string, prize: PrizeRef | undefined) =>
  prize ? `T#${prize.tournamentId}#${prize.periodId}` : day;

export const settlementKeys = {
  settlement: (gameId: string, day: string, prize?: PrizeRef) => ({
    pk: `GAME#${gameId}`,
    sk: prize ? `PRIZE#${prize.tournamentId}#${prize.periodId}` : `DAY#${day}`,
  }),
  gamePartition: (gameId: string) => `GAME#${gameId}`,
  DAY_PREFIX: 'DAY#',
  open: (gameId: string) => ({ pk: `GAME#${gameId}`, sk: 'OPEN' }),
  dayPartition: (gameId: string, day: string, prize?: PrizeRef) => `SETTLE#${gameId}#${runName(day, prize)}`,
  players: (gameId: string, day: string, freezeId: string, chunk: number) => ({
    pk: `SETTLE#${gameId}#${day}`,
    sk: `PLAYERS#${freezeId}#${String(chunk).padStart(5, '0')}`,
  }),
  payout: (gameId: string, day: string, arcId: string, prize?: PrizeRef) => ({
    pk: `SETTLE#${gameId}#${runName(day, prize)}`,
    sk: `PAY#${arcId}`,
  }),
  PAY_PREFIX: 'PAY#',
  /** The run's statement (./statement.ts), written with its intent. */
  statement: (gameId: string, day: string, prize?: PrizeRef) => ({
    pk: `SETTLE#${gameId}#${runName(day, prize)}`,
    sk: 'STATEMENT',
  }),
  /** The run's commitment transaction (./commitment.ts). */
  commitment: (gameId: string, day: string, prize?: PrizeRef) => ({
    pk: `SETTLE#${gameId}#${runName(day, prize)}`,
    sk: 'COMMITMENT',
  }),
  carry: (gameId: string, arcId: string) => ({ pk: `CARRY#${gameId}`, sk: `USER#${arcId}` }),
  carries: (gameId: string) => ({ pk: `GAME#${gameId}`, sk: 'CARRIES' }),
  recipientSort: (day: string, gameId: string, prize?: PrizeRef) =>
    prize ? `${day}#${gameId}#${runName(day, prize)}` : `${day}#${gameId}`,
};

/** The settlement table's name. */
export const settlementTable = (): string => settings().SETTLEMENT_TABLE;
