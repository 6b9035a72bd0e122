// Freezing a (game, day): the day's board (invalidated sessions already taken out by the play domain), the
// players' wallets, the pool and the recipients' carries and balances are read once, the allocation computed
// (./allocation.ts) and the whole persisted as the intent, with the pool's allocation and the run's statement
// (./statement.ts: what it read and allocated, its merkle root on the intent), before anything is sent.
import { randomUUID } from 'node:crypto';
import type { ChainReader } from '../../chain/index.js';
import { effectiveSplit, getGame } from '../../games/index.js';
import { walletAddresses } from '../../user/index.js';
import { DISTRIBUTION } from '../model.js';
import { poolAllocationWrite, poolBooks } from '../payout.js';
import { allocateDay, byRank } from './allocation.js';
import type { FrozenPlayer, Settlement } from './model.js';
import { carriedOf, persistIntent, putPlayerChunks, statementWrite } from './repository.js';
import { dayStatement, poolFigures, statementRoot } from './statement.js';

/** The fee of a one-signature transaction (lamports per signature), paid by the vault. */
export const TRANSFER_FEE = 5_000n;

/** One player's counted points of a day, and when the score was reached (the tie-break). */
export interface DayStanding {
  arcId: string;
  points: number;
  reachedAt: string;
}

/** Opaque position in a board read by pages. */
export type StandingsCursor = Record<string, unknown>;

/**
 * Port: one page of a game's board of a UTC day, players with points > 0, in no particular order (the play
 * domain's `dayStandings`, wired by the function file: play imports rewards, so rewards does not import play).
 */
export type DayStandings = (
  gameId: string,
  day: string,
  page: { limit: number; start?: StandingsCursor | undefined },
) => Promise<{ standings: DayStanding[]; next: StandingsCursor | undefined }>;

/** What freezing reads besides its own tables: the day's board, balances and the rent-exempt minimum on chain. */
export interface FreezeDeps {
  chain: Pick<ChainReader, 'getBalance' | 'getMinimumBalanceForRentExemption'>;
  standings: DayStandings;
  now: () => Date;
}

const BOARD_PAGE = 1_000;

/** Every standing of the day, in rank order. */
export const readBoard = async (
  gameId: string,
  day: string,
  standings: DayStandings,
): Promise<DayStanding[]> => {
  const all: DayStanding[] = [];
  let start: StandingsCursor | undefined;
  do {
    const page = await standings(gameId, day, { limit: BOARD_PAGE, start });
    all.push(...page.standings);
    start = page.next;
  } while (start);
  return all.sort(byRank);
};

/**
 * Freeze and persist the settlement of (game, day). Returns false when the intent could not be written because
 * another run persisted this day first, or another day of the game is open (the caller re-reads and resumes).
 */
export const freezeSettlement = async (gameId: string, day: string, deps: FreezeDeps): Promise<boolean> => {
  const game = await getGame(gameId);
  if (!game) throw new Error(`Game ${gameId} not found`);
  const board = await readBoard(gameId, day, deps.standings);
  const wallets = await walletAddresses(board.map((s) => s.arcId));
  const players: FrozenPlayer[] = board.map((s) => ({
    userId: s.arcId,
    wallet: wallets.get(s.arcId) ?? null,
    points: s.points,
  }));
  const split = effectiveSplit(game);
  const books = await poolBooks(gameId);
  const ranked = board.slice(0, DISTRIBUTION.playerShareByRankBps.length);
  const recipients = [...new Set([...Object.keys(split), ...ranked.map((s) => s.arcId)])];
  const recipientWallets = await walletAddresses(recipients.filter((id) => !wallets.has(id)));
  for (const [id, address] of wallets) if (recipients.includes(id)) recipientWallets.set(id, address);
  const [carries, rentExemptMinimum, balances] = await Promise.all([
    carriedOf(gameId, recipients),
    deps.chain.getMinimumBalanceForRentExemption(0),
    Promise.all(
      [...recipientWallets].map(
        async ([id, address]) => [id, { address, balance: await deps.chain.getBalance(address) }] as const,
      ),
    ),
  ]);
  const input = {
    undistributed: books?.undistributed ?? 0n,
    vaultReserve: rentExemptMinimum,
    creatorSplit: split,
    ranked,
    carried: carries.carried,
    wallets: new Map(balances),
    rentExemptMinimum,
    fee: TRANSFER_FEE,
    rule: DISTRIBUTION,
  };
  const allocation = allocateDay(input);
  const statement = dayStatement(gameId, day, poolFigures(books), input, allocation.lines);
  const root = await statementRoot(statement);
  const now = deps.now().toISOString();
  const freezeId = randomUUID();
  const chunks = await putPlayerChunks(gameId, day, freezeId, players);
  const settlement: Settlement = {
    gameId,
    day,
    status: 'paying',
    players: players.length,
    freezeId,
    chunks,
    undistributedBefore: (books?.undistributed ?? 0n).toString(),
    allocated: allocation.allocated.toString(),
    creatorPart: allocation.creatorPart.toString(),
    playerPart: allocation.playerPart.toString(),
    vaultAddress: books?.vaultAddress ?? null,
    lines: allocation.lines,
    statement: { version: statement.version, root },
    emissionNotified: false,
    frozenAt: now,
  };
  return persistIntent(settlement, carries, [
    statementWrite(settlement, statement, root),
    ...(books ? [poolAllocationWrite(gameId, books.allocated, allocation.allocated, now)] : []),
  ]);
};
