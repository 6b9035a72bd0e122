// GET /rewards/game-rewards-pool/{gameId}: a game's pool as read now (its vault's balance on chain, what
// purchases paid in, the recent inflows, the recent settlements) with the game's listing figures and the
// distribution rule.
import type { ChainReader } from '../../chain/index.js';
import { effectiveSplit, requireGame } from '../../games/index.js';
import { nextDailyPayout } from '../figures.js';
import { DISTRIBUTION, type Tier, tierMultiplier } from '../model.js';
import { getPool, recentInflows } from '../pool-repository.js';
import type { PriceSource } from '../price.js';
import { usdOf } from '../pricing.js';
import { recentSettlements } from '../settlement/queries.js';

/** The pool read: the vault's balance and the price, nothing that signs. */
export interface PoolDeps {
  chain: Pick<ChainReader, 'getBalance'>;
  price: PriceSource;
}

/** GET /rewards/game-rewards-pool/{gameId}. */
export const gameRewardsPool = async (gameId: string, deps: PoolDeps) => {
  const game = await requireGame(gameId);
  const [pool, price, inflows, settlements] = await Promise.all([
    getPool(game.id),
    deps.price.current(),
    recentInflows(game.id, 20),
    recentSettlements(game.id, 10),
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
    totalEarmarkedLamports: pool?.totalEarmarkedLamports ?? '0',
    totalPaidLamports: pool?.totalPaidLamports ?? '0',
    totalFeesLamports: pool?.totalFeesLamports ?? '0',
    nextDailyPayoutLamports: nextDailyPayout(
      totalInflow - BigInt(pool?.totalAllocatedLamports ?? '0') - BigInt(pool?.totalEarmarkedLamports ?? '0'),
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
