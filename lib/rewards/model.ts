// The multiplier and rewards-pool model (docs/rewards.md). Pure data: no I/O.

/** Multiplier tiers and their factor in basis points (10 000 = 1×). */
export const TIERS = { '1.5x': 15_000, '2x': 20_000, '3x': 30_000 } as const;
export type Tier = keyof typeof TIERS;
export const TIER_NAMES = Object.keys(TIERS) as [Tier, ...Tier[]];

/** Durations a multiplier can be bought for, in seconds: 1 h, 6 h, 24 h. */
export const DURATIONS = [3_600, 21_600, 86_400] as const;
export type DurationSeconds = (typeof DURATIONS)[number];

/** The factor a tier applies, as a number (1.5, 2, 3). */
export const tierMultiplier = (tier: Tier): number => TIERS[tier] / 10_000;

/** 1 SOL in lamports. */
export const LAMPORTS_PER_SOL = 1_000_000_000n;

/**
 * Lamports a purchase must leave in the wallet besides the price: the network fee (at most PURCHASE_MAX_FEE), and enough
 * to keep the wallet above the rent-exempt minimum of a system account (890 880 lamports), which a transfer may
 * not cross. 0.001 SOL.
 */
export const PURCHASE_FEE_RESERVE = 1_000_000n;

/**
 * The most a purchase's transfer may cost in fees (signature plus priority fee): within the reserve, less the
 * rent-exempt minimum it must leave, so the wallet still holds that minimum after price and fee.
 */
export const PURCHASE_MAX_FEE = 100_000n;

/** The rule of a pool's daily payout (the settlement's allocation takes it as published). */
export interface PayoutRule {
  payoutHorizonDays: number;
  creatorShareBps: number;
  playerShareBps: number;
  playerShareByRankBps: readonly number[];
}

/**
 * Distribution rule of a game's pool (published by GET /rewards/game-rewards-pool; paid by the daily settlement,
 * settlement/). Each day 1/30 of the undistributed pool is paid out: 20 % to the game's creators, split per
 * the game's effective orgRewardsSplit, and 80 % to the players of that UTC day's leaderboard top 10, by rank.
 */
export const DISTRIBUTION = {
  payoutHorizonDays: 30,
  creatorShareBps: 2_000,
  playerShareBps: 8_000,
  /** Share of the player part per daily rank, 1 to 10 (sums to 10 000). */
  playerShareByRankBps: [2_500, 1_800, 1_300, 1_000, 800, 700, 600, 500, 450, 350],
} as const satisfies PayoutRule;

/** Purchase states: `pending` (intent persisted, transfer maybe in flight), `completed`, `failed` (terminal). */
export type PurchaseStatus = 'pending' | 'completed' | 'failed';

/** A purchase as stored (lamports as decimal strings: they are money). */
export interface Purchase {
  pk: string;
  sk: string;
  purchaseId: string;
  idempotencyKey: string;
  arcId: string;
  gameId: string;
  tier: Tier;
  multiplierBps: number;
  durationSeconds: number;
  lamports: string;
  usd: number;
  solUsdPrice: number;
  competitors: number;
  walletAddress: string;
  vaultAddress: string;
  status: PurchaseStatus;
  signature?: string;
  lastValidBlockHeight?: number;
  previousSignatures?: string[];
  failureReason?: string;
  startsAt?: string;
  endsAt?: string;
  createdAt: string;
  updatedAt: string;
  completedAt?: string;
  /**
   * Set on a purchase made with a session token: the UTC day of the player's allowance it reserved its price
   * against (released if the purchase fails without charging).
   */
  allowanceDay?: string;
}

/** A player's multiplier slot in a game. */
export interface Slot {
  state: 'reserved' | 'active';
  purchaseId: string;
  purchaseKey: string;
  tier?: Tier;
  multiplierBps?: number;
  startsAt?: string;
  endsAt?: string;
}

/** A game's rewards pool: a custodial vault (a keypair the platform holds, sealed at rest). */
export interface Pool {
  gameId: string;
  custodial: true;
  vaultAddress: string;
  vaultSealedKey: string;
  /** Everything paid into the vault: purchases and studios' deposits into tournament periods. */
  totalInflowLamports: string;
  totalAllocatedLamports: string;
  /** Deposits held for tournament periods not closed yet: in the vault, not the pool's to distribute. */
  totalEarmarkedLamports: string;
  /** What settlements paid out of the vault: lamports received, fees the vault paid, USD at payout (cents). */
  totalPaidLamports: string;
  totalFeesLamports: string;
  totalPaidUsdCents: number;
  payouts: number;
  purchases: number;
  createdAt: string;
}

/**
 * Lamports of a vault never distributed: the rent-exempt minimum of a system account (890 880), so that a payout
 * never leaves the vault below it (the settlement reads the chain's value; the estimate uses this one).
 */
export const VAULT_RESERVE = 890_880n;

/**
 * The most a player can allow a game to spend per UTC day with its session token: 1 000 SOL. Lamports are
 * DynamoDB numbers in the allowance's condition expressions, exact far beyond this.
 */
export const MAX_ALLOWANCE_LAMPORTS = 1_000n * LAMPORTS_PER_SOL;

/** What a player granted a game: lamports its session token may spend per UTC day on multipliers. */
export interface Allowance {
  arcId: string;
  gameId: string;
  lamportsPerDay: number;
  grantedAt: string;
  updatedAt: string;
}
