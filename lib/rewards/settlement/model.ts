// The daily settlement's model (docs/settlement.md), shared by a tournament period's prize run. Pure data: no I/O.

/** A tournament period whose prizes a run pays (absent: the run is a daily settlement). */
export interface PrizeRef {
  tournamentId: string;
  periodId: string;
}

/** A settled (game, day): `paying` once its intent is persisted, `settled` when every line is paid or carried. */
export type SettlementStatus = 'paying' | 'settled';

/** One recipient's line of a day's payout (a creator and a top player can be the same user: one line). */
export interface PayoutLine {
  arcId: string;
  /** Where the SOL goes; null when the user has no embedded wallet (the line carries over). */
  wallet: string | null;
  roles: Array<'creator' | 'player'>;
  /** Rank on the day's board (players), else null. */
  rank: number | null;
  /** This day's share (lamports). */
  share: string;
  /** Carried over from this recipient's earlier payouts that could not land. */
  carriedIn: string;
  /** share + carriedIn: what leaves the pool's books for this recipient today (paid, or carried on). */
  due: string;
  /** Lamports the recipient receives (due − fee), 0 when the line carries over. */
  send: string;
  /** The transaction fee the vault pays for the transfer (part of due), 0 when nothing is sent. */
  fee: string;
  /** What carries over to the recipient's next payout: due when nothing is sent, else 0. */
  carryOut: string;
}

/** A settlement intent as stored: the frozen inputs' digest and the allocation, written before anything is sent. */
export interface Settlement {
  gameId: string;
  /** The settled UTC day; for a prize run, the day its period ended. */
  day: string;
  /** Set on a tournament period's prize run (docs/tournaments.md); absent on a daily settlement. */
  prize?: PrizeRun;
  status: SettlementStatus;
  /** Players with counted points that day (frozen in the PLAYERS chunks). */
  players: number;
  /** The freeze attempt whose player chunks this intent was computed from. */
  freezeId: string;
  chunks: number;
  /** The pool before this day: inflow − allocated (lamports), and the share of it this day allocated. */
  undistributedBefore: string;
  allocated: string;
  creatorPart: string;
  playerPart: string;
  vaultAddress: string | null;
  lines: PayoutLine[];
  /** The run's statement (its own item, ./statement.ts): version and merkle root. Absent on runs before statements. */
  statement?: { version: number; root: string };
  emissionNotified: boolean;
  frozenAt: string;
  settledAt?: string;
}

/** One player of a settled day, as frozen (the emission port's input). */
export interface FrozenPlayer {
  userId: string;
  wallet: string | null;
  points: number;
}

/** What a prize run froze besides its lines: the period, its pot and the paid ranks' standings. */
export interface PrizeRun extends PrizeRef {
  endsAt: string;
  /** Basis points of the pool's distributable lamports the period took (the studio's share). */
  poolBps: number;
  /** The period's prize pool: the pool share and the fund, before the table splits it by rank. */
  potLamports: string;
  /** The studio's deposits into the period (its fund), and what the allocated prizes took of it (the rest went
   * back to the pool). Absent on runs recorded before deposits existed. */
  fundLamports?: string;
  fundUsedLamports?: string;
  /** What the run took from the pool itself (its allocation less the fund's part), booked on the pool's day within
   * the day's room for prizes as read at freeze, and what prize runs had taken that day before. Absent on runs
   * recorded before the daily bound existed. */
  poolTakenLamports?: string;
  dayRoomLamports?: string;
  dayTakenBeforeLamports?: string;
  /** The board frozen at close, down to the last paid rank (rank order). */
  results: Array<{ rank: number; arcId: string; points: number }>;
  /** Why nothing was paid, when nothing was (`cancelled`: the tournament was cancelled before the period ended). */
  voided?: 'cancelled';
}
