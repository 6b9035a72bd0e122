// GET /rewards/game-rewards-pool/{gameId}: a game's pool as read now (its vault's balance on chain, what
// purchases paid in, the recent inflows) with the game's listing figures and the distribution rule.
import type { ChainReader } from '../chain/index.js';
import { effectiveSplit, requireGame } from '../games/index.js';
import { nextDailyPayout } from './figures.js';
import { DISTRIBUTION, type Tier, tierMultiplier } from './model.js';
import { getPool, recentInflows } from './pool-repository.js';
import type { PriceSource } from './price.js';
import { usdOf } from './pricing.js';

/** A settled day of the pool as the pool view lists it (the settlement domain provides them through this port). */
export interface SettlementSummary {
  day: string;
  status: 'paying' | 'settled';
  undistributedBeforeLamports: string;
  allocatedLamports: string;
  creatorPartLamports: string;
  playerPartLamports: string;
  players: number;
  settledAt: string | null;
  recipients: Array<{
    wallet: string | null;
    roles: Array<'creator' | 'player'>;
    rank: number | null;
    shareLamports: string;
    carriedInLamports: string;
    sentLamports: string;
    feeLamports: string;
    carriedOutLamports: string;
    status: 'pending' | 'confirmed' | 'carried';
    signature: string | null;
  }>;
}

/** A game's most recent settlements, newest first (port: the function passes the settlement domain's). */
export type RecentSettlements = (gameId: string, limit: number) => Promise<SettlementSummary[]>;

/** The pool read: the vault's balance and the price, nothing that signs; the settlements when wired. */
export interface PoolDeps {
  chain: Pick<ChainReader, 'getBalance'>;
  price: PriceSource;
  recentSettlements?: RecentSettlements | undefined;
}

/** GET /rewards/game-rewards-pool/{gameId}. */
export const gameRewardsPool = async (gameId: string, deps: PoolDeps) => {
  const game = await requireGame(gameId);
  const [pool, price, inflows, settlements] = await Promise.all([
    getPool(game.id),
    deps.price.current(),
    recentInflows(game.id, 20),
    deps.recentSettlements ? deps.recentSettlements(game.id, 10) : Promise.resolve([]),
  ]);
  const balance = pool ? await deps.chain.getBalance(pool.vaultAddress) : 0n;
  const totalInflow = BigInt(pool?.totalInflowLamports ?? '0');
  return {
    gameId: game.id,
    custodial: true as const,
    vaultAddress: pool?.vaultAddress ?? null,
    balanceLamports: balance.toString(),
    // No price at hand (every feed down for a while): the lamports stand, the USD figures are null.
    balanceUsd: price ? usdOf(balance, price.usd) : null,
    solUsdPrice: price?.usd ?? null,
    priceSource: price?.source ?? null,
    totalInflowLamports: totalInflow.toString(),
    totalAllocatedLamports: pool?.totalAllocatedLamports ?? '0',
    totalPaidLamports: pool?.totalPaidLamports ?? '0',
    totalFeesLamports: pool?.totalFeesLamports ?? '0',
    nextDailyPayoutLamports: nextDailyPayout(
      totalInflow - BigInt(pool?.totalAllocatedLamports ?? '0'),
    ).toString(),
    purchases: pool?.purchases ?? 0,
    totalRewardsPoolValueUsd: game.totalRewardsPoolValueUsd,
    totalRewardsAllocatedUsd: game.totalRewardsAllocatedUsd,
    estimatedDailyRewardsUsd: game.estimatedDailyRewardsUsd,
    distribution: {
      payoutHorizonDays: DISTRIBUTION.payoutHorizonDays,
      creatorShareBps: DISTRIBUTION.creatorShareBps,
      playerShareBps: DISTRIBUTION.playerShareBps,
      creatorSplit: effectiveSplit(game),
      playerShareByRankBps: [...DISTRIBUTION.playerShareByRankBps],
    },
    recentInflows: inflows.map((item) => ({
      purchaseId: String(item.purchaseId),
      tier: item.tier as Tier,
      multiplier: tierMultiplier(item.tier as Tier),
      durationSeconds: Number(item.durationSeconds),
      lamports: String(item.lamports),
      usd: Number(item.usd),
      fromWallet: String(item.fromWallet),
      signature: String(item.signature),
      at: String(item.at),
    })),
    recentSettlements: settlements,
  };
};
