// The allocation of a day's rewards-pool payout: a pure function of frozen inputs (docs/settlement.md).
import type { PayoutRule } from '../model.js';
import type { PayoutLine } from './model.js';

export interface AllocationInput {
  /** The pool's undistributed lamports before this day: inflow − everything allocated on earlier days. */
  undistributed: bigint;
  /** Lamports never distributed: the vault's own rent-exempt minimum, so a payout can never close it. */
  vaultReserve: bigint;
  /** The game's effective orgRewardsSplit: Arc ID → basis points (sums to 10 000). */
  creatorSplit: Readonly<Record<string, number>>;
  /** The day's board in rank order (points > 0); only the first ranks of the rule are paid. */
  ranked: ReadonlyArray<{ arcId: string; points: number }>;
  /** Each recipient's carry from earlier payouts. */
  carried: ReadonlyMap<string, bigint>;
  /** Each recipient's wallet (absent: none) and its balance on chain (0: the account does not exist). */
  wallets: ReadonlyMap<string, { address: string; balance: bigint }>;
  /** The rent-exempt minimum of a system account: a transfer to an empty account must reach it. */
  rentExemptMinimum: bigint;
  /** The fee of one transfer (one signature), paid by the vault out of the recipient's due. */
  fee: bigint;
  rule: PayoutRule;
}

export interface Allocation {
  /** Lamports allocated this day (the sum of the shares); the rest stays undistributed. */
  allocated: bigint;
  creatorPart: bigint;
  playerPart: bigint;
  lines: PayoutLine[];
}

const BPS = 10_000n;

/**
 * The day's payout: 1/horizon of the distributable pool (undistributed − vaultReserve), creators' part split by
 * basis points, players' part by rank; every share rounded down, the remainders stay undistributed. A line whose
 * due (share + carry) cannot land — no wallet, less than the fee, or below the rent-exempt minimum for an empty
 * account — carries over entirely; otherwise the recipient receives due − fee.
 */
export const allocateDay = (input: AllocationInput): Allocation => {
  const { rule } = input;
  const distributable =
    input.undistributed > input.vaultReserve ? input.undistributed - input.vaultReserve : 0n;
  const budget = distributable / BigInt(rule.payoutHorizonDays);
  const creatorPart = (budget * BigInt(rule.creatorShareBps)) / BPS;
  const playerPart = (budget * BigInt(rule.playerShareBps)) / BPS;
  const shares = new Map<string, Share>();
  const add = (arcId: string, share: bigint, role: 'creator' | 'player', rank: number | null) => {
    const entry = shares.get(arcId) ?? { share: 0n, roles: new Set(), rank: null };
    entry.share += share;
    entry.roles.add(role);
    if (rank !== null) entry.rank = rank;
    shares.set(arcId, entry);
  };
  for (const [arcId, bps] of Object.entries(input.creatorSplit).sort(([a], [b]) => a.localeCompare(b)))
    add(arcId, (creatorPart * BigInt(bps)) / BPS, 'creator', null);
  input.ranked.slice(0, rule.playerShareByRankBps.length).forEach((standing, i) => {
    add(standing.arcId, (playerPart * BigInt(rule.playerShareByRankBps[i] ?? 0)) / BPS, 'player', i + 1);
  });
  const { allocated, lines } = linesOf(shares, input);
  return { allocated, creatorPart, playerPart, lines };
};

type Share = { share: bigint; roles: Set<'creator' | 'player'>; rank: number | null };
type Landing = Pick<AllocationInput, 'carried' | 'wallets' | 'fee' | 'rentExemptMinimum'>;

/**
 * Each recipient's line: its share plus its carry is due; the line sends due − fee when it can land (a wallet, more
 * than the fee, and at least the rent-exempt minimum to an account that does not exist yet), else it all carries.
 */
const linesOf = (shares: ReadonlyMap<string, Share>, input: Landing) => {
  let allocated = 0n;
  const lines: PayoutLine[] = [];
  for (const [arcId, { share, roles, rank }] of shares) {
    allocated += share;
    const carriedIn = input.carried.get(arcId) ?? 0n;
    const due = share + carriedIn;
    if (due === 0n) continue;
    const wallet = input.wallets.get(arcId);
    const net = due - input.fee;
    const lands = wallet !== undefined && net > 0n && (wallet.balance > 0n || net >= input.rentExemptMinimum);
    lines.push({
      arcId,
      wallet: wallet?.address ?? null,
      roles: [...roles].sort(),
      rank,
      share: share.toString(),
      carriedIn: carriedIn.toString(),
      due: due.toString(),
      send: lands ? net.toString() : '0',
      fee: lands ? input.fee.toString() : '0',
      carryOut: lands ? '0' : due.toString(),
    });
  }
  return { allocated, lines };
};

export interface PrizeAllocationInput extends Landing {
  /** The pool's undistributed lamports before this run, and the vault reserve never paid (as for a day). */
  undistributed: bigint;
  vaultReserve: bigint;
  /** The tournament's share of the distributable pool for one period (basis points). */
  poolBps: number;
  /** What prize runs may still take from the pool this UTC day (the daily bound less what they took). */
  poolRoom: bigint;
  /** What the studio deposited for this period (its fund), and every period's deposits held in the vault. */
  fund: bigint;
  earmarked: bigint;
  /** The prize table: each rank of a range gets `bps` of the pot. */
  table: ReadonlyArray<{ fromRank: number; toRank: number; bps: number }>;
  /** The period's board in rank order (points > 0). */
  ranked: ReadonlyArray<{ arcId: string; points: number }>;
}

const min = (a: bigint, b: bigint) => (a < b ? a : b);

/**
 * The most tournament prize runs may take from a game's pool per UTC day, in basis points of the distributable
 * pool: half. One period may take that much alone (a period's own bound is the same 5,000 bps), so a daily
 * tournament pays as configured; but ten tournaments of one-minute periods share the same half, so the daily
 * settlement always keeps at least half of what the pool could distribute that day.
 */
export const MAX_PRIZE_POOL_BPS_PER_DAY = 5_000;

/**
 * What prize runs may take from the pool on a UTC day: MAX_PRIZE_POOL_BPS_PER_DAY of what the pool could distribute
 * before that day's prize runs (the distributable lamports now plus what they took: their takes lowered it by as
 * much), less what they took. A day's inflows raise it; the daily settlement's allocation lowers it.
 */
export const prizeDayBudget = (distributable: bigint, takenToday: bigint) => {
  const budget = ((distributable + takenToday) * BigInt(MAX_PRIZE_POOL_BPS_PER_DAY)) / BPS;
  return { budget, room: budget > takenToday ? budget - takenToday : 0n };
};

/**
 * A tournament period's prizes: the pot is poolBps of the distributable pool (undistributed − reserve), at most the
 * day's room (what the period cannot take stays in the pool: it pays less, nothing is owed later), plus the
 * period's fund, less what the vault must keep for its reserve when the pool alone holds less; each paid rank gets
 * its basis points of the pot, rounded down. What is allocated is taken from the fund first; what the fund does not
 * pay (ranks nobody reached, remainders) goes back to the pool, as does the pool share's rest.
 */
export const allocatePrizes = (input: PrizeAllocationInput) => {
  const distributable =
    input.undistributed > input.vaultReserve ? input.undistributed - input.vaultReserve : 0n;
  const share = (distributable * BigInt(input.poolBps)) / BPS;
  const poolPart = min(share, input.poolRoom > 0n ? input.poolRoom : 0n);
  // After this run the vault still holds the other lamports it owes (undistributed + other funds) ≥ its reserve.
  const room = input.undistributed + input.earmarked - input.vaultReserve - poolPart;
  const fundPart = min(input.fund, room > 0n ? room : 0n);
  const pot = poolPart + fundPart;
  const shares = new Map<string, Share>();
  input.ranked.forEach((standing, i) => {
    const rank = i + 1;
    const range = input.table.find((r) => r.fromRank <= rank && rank <= r.toRank);
    if (!range) return;
    shares.set(standing.arcId, { share: (pot * BigInt(range.bps)) / BPS, roles: new Set(['player']), rank });
  });
  const { allocated, lines } = linesOf(shares, input);
  const fundUsed = min(fundPart, allocated);
  // What the run takes from the pool itself: its allocation less what the period's fund paid.
  const poolTaken = allocated - fundUsed;
  return {
    pot,
    poolPart,
    fundPart,
    fundUsed,
    fundReleased: input.fund - fundUsed,
    poolTaken,
    allocated,
    lines,
  };
};

/** Leaderboard order: points desc, then who reached the score first, then Arc ID (as the play domain ranks). */
export const byRank = (
  a: { arcId: string; points: number; reachedAt: string },
  b: { arcId: string; points: number; reachedAt: string },
) => b.points - a.points || a.reachedAt.localeCompare(b.reachedAt) || a.arcId.localeCompare(b.arcId);
