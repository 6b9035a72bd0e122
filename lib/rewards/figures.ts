// A game's listing figures from its rewards pool, synced after every purchase and every settlement (docs/rewards.md,
// "Pool and game figures"): totalRewardsPoolValueUsd (the vault's balance at the current price),
// estimatedDailyRewardsUsd (the next settlement's payout) and totalRewardsAllocatedUsd (what settlements paid, in USD
// at payout time).

import { isConditionFailure } from '../adapters/dynamodb.js';
import type { ChainReader } from '../chain/index.js';
import { logger } from '../core/logger.js';
import { getGame, saveGameFigures } from '../games/index.js';
import { DISTRIBUTION, VAULT_RESERVE } from './model.js';
import { getPool } from './pool-repository.js';
import type { PriceSource } from './price.js';
import { usdOf } from './pricing.js';

const GAME_SYNC_ATTEMPTS = 5;

/** What the figures read: the price, and the vault's balance on chain. */
export interface FiguresDeps {
  price: PriceSource;
  chain: Pick<ChainReader, 'getBalance'>;
}

/** The next settlement's pool payout: 1/horizon of the undistributed lamports above the vault's reserve. */
export const nextDailyPayout = (undistributed: bigint): bigint =>
  undistributed > VAULT_RESERVE
    ? (undistributed - VAULT_RESERVE) / BigInt(DISTRIBUTION.payoutHorizonDays)
    : 0n;

/**
 * Keep the game's listing figures current from its pool and vault (absolute values, so re-running is harmless).
 * Written with their sort keys, optimistic on the figures' own revision: anybody can trigger this (a lamport to the
 * public vault, then a purchase), so it must not touch the `version` that guards launches and edits.
 */
export const syncGameFigures = async (gameId: string, deps: FiguresDeps) => {
  for (let attempt = 0; attempt < GAME_SYNC_ATTEMPTS; attempt++) {
    // The game first, then the pool: a save that succeeds saw every activation and payout before its game read.
    const game = await getGame(gameId);
    const pool = game ? await getPool(gameId) : undefined;
    if (!game || !pool) return;
    const [price, balance] = await Promise.all([
      deps.price.current(),
      deps.chain.getBalance(pool.vaultAddress),
    ]);
    // No price at hand: the USD figures that need one keep their last values until the next sync.
    // Deposits held for tournament periods are not the daily payouts' to take.
    const undistributed =
      BigInt(pool.totalInflowLamports) -
      BigInt(pool.totalAllocatedLamports) -
      BigInt(pool.totalEarmarkedLamports);
    const value = price ? usdOf(balance, price.usd) : game.totalRewardsPoolValueUsd;
    const daily = price ? usdOf(nextDailyPayout(undistributed), price.usd) : game.estimatedDailyRewardsUsd;
    const allocated = pool.totalPaidUsdCents / 100;
    if (
      game.totalRewardsPoolValueUsd === value &&
      game.estimatedDailyRewardsUsd === daily &&
      game.totalRewardsAllocatedUsd === allocated
    )
      return;
    try {
      await saveGameFigures(game, {
        totalRewardsPoolValueUsd: value,
        estimatedDailyRewardsUsd: daily,
        totalRewardsAllocatedUsd: allocated,
      });
      return;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  logger.warn('game reward figures not synced; the next purchase or settlement syncs them', { gameId });
};
