// A game's listing figures from its rewards pool (totalRewardsPoolValueUsd, estimatedDailyRewardsUsd), synced
// after every purchase.
import { isConditionFailure } from '../adapters/dynamodb.js';
import { logger } from '../core/logger.js';
import { getGame, saveGame } from '../games/index.js';
import { DISTRIBUTION } from './model.js';
import { getPool } from './pool-repository.js';
import type { PriceSource } from './price.js';
import { usdOf } from './pricing.js';
import { round2 } from './quotes.js';

const GAME_SYNC_ATTEMPTS = 5;

/**
 * Keep the game's listing figures current from its pool (absolute values, so re-running is harmless):
 * totalRewardsPoolValueUsd = (inflows − allocations) at the current SOL price; estimatedDailyRewardsUsd =
 * that / payoutHorizonDays. Written through saveGame (optimistic on version) so the listing indexes follow.
 */
export const syncGameFigures = async (gameId: string, deps: { price: PriceSource }) => {
  for (let attempt = 0; attempt < GAME_SYNC_ATTEMPTS; attempt++) {
    // The game first, then the pool: a save that succeeds saw every activation before its game read.
    const game = await getGame(gameId);
    const pool = game ? await getPool(gameId) : undefined;
    if (!game || !pool) return;
    const value = usdOf(
      BigInt(pool.totalInflowLamports) - BigInt(pool.totalAllocatedLamports),
      await deps.price.solUsd(),
    );
    const daily = round2(value / DISTRIBUTION.payoutHorizonDays);
    if (game.totalRewardsPoolValueUsd === value && game.estimatedDailyRewardsUsd === daily) return;
    try {
      await saveGame(
        {
          ...game,
          version: game.version + 1,
          totalRewardsPoolValueUsd: value,
          estimatedDailyRewardsUsd: daily,
        },
        game,
      );
      return;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
  logger.warn('game reward figures not synced; the next purchase syncs them', { gameId });
};
