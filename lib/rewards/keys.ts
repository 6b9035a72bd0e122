import { settings } from '../core/config.js';

/**
 * RewardsTable (REWARDS_TABLE) keys. Access patterns:
 * - a player's multiplier slot in a game:  pk=MULT#<gameId>#<arcId>          sk=SLOT
 *     one item per player and game; `state` is `reserved` (a purchase holds it while its transfer is in flight)
 *     or `active` (tier, multiplierBps, startsAt, endsAt). Read by both save paths in their existing batch read;
 *     written only with conditions, so at most one multiplier is active or being bought per player and game.
 * - a purchase by idempotency key:         pk=MPURCHASE#<arcId>#<key>        sk=PURCHASE
 *     the purchase intent, written before anything is sent on chain; holds the transfer's signature and its
 *     blockhash expiry so a retry checks the chain instead of paying again. Keys are scoped to the player.
 * - a game's rewards pool (custodial vault): pk=POOL#<gameId>                sk=POOL
 *     vault address, sealed vault key, running inflow totals (ADDed in the activation transaction).
 * - a pool's inflows, newest first:        pk=POOL#<gameId>                  sk=INFLOW#<completedAt>#<purchaseId>
 *     Query pk = POOL#<gameId> AND begins_with(sk, 'INFLOW#'), descending, Limit 20.
 * The table has no index and no TTL: financial records are kept.
 */
export const rewardsKeys = {
  slot: (gameId: string, arcId: string) => ({ pk: `MULT#${gameId}#${arcId}`, sk: 'SLOT' }),
  purchase: (arcId: string, idempotencyKey: string) => ({
    pk: `MPURCHASE#${arcId}#${idempotencyKey}`,
    sk: 'PURCHASE',
  }),
  pool: (gameId: string) => ({ pk: `POOL#${gameId}`, sk: 'POOL' }),
  poolPartition: (gameId: string) => `POOL#${gameId}`,
  inflow: (gameId: string, completedAt: string, purchaseId: string) => ({
    pk: `POOL#${gameId}`,
    sk: `INFLOW#${completedAt}#${purchaseId}`,
  }),
  INFLOW_PREFIX: 'INFLOW#',
};

/** The rewards table's name. */
export const rewardsTable = (): string => settings().REWARDS_TABLE;
