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
 * - a pool's books per UTC day:            pk=POOL#<gameId>                  sk=DAY#<yyyy-mm-dd>
 *     what moved the pool's books that day (inflow and purchases, allocation, paid, fees and payouts), ADDed in
 *     the same transactions that move the pool item's totals, so the pool item is always the sum of its days
 *     (and of what came before the days were kept). Query pk = POOL#<gameId> AND sk BETWEEN 'DAY#' AND
 *     'DAY#<day>', descending: the history's pages.
 * - a player's purchase allowance to a game: pk=ALLOWANCE#<arcId>           sk=GAME#<gameId>
 *     lamports per UTC day the game may spend with the player's session token; deleted on revocation.
 *     Query pk = ALLOWANCE#<arcId> AND begins_with(sk, 'GAME#') lists a player's allowances.
 * - what session purchases reserved of it on a day: pk=ALLOWANCE#<arcId>   sk=SPENT#<day>#<gameId>
 *     `spentLamports`, ADDed in the purchase's reservation transaction (conditional on the day's room) and
 *     subtracted in the transaction that fails a purchase that never charged. Kept after revocation.
 *     Query pk = ALLOWANCE#<arcId> AND begins_with(sk, 'SPENT#<day>#') reads a day's spending for every game.
 * - a tournament period's prize fund:      pk=TFUND#<gameId>#<tournamentId>  sk=PERIOD#<periodId>
 *     lamports the studio deposited for the period (ADDed when a deposit lands, earmarked on the pool's books),
 *     frozen by the period's prize run (what its pot used, what went back to the pool).
 * - a studio's deposit into a period:      pk=TFUND#<gameId>#<tournamentId>  sk=DEPOSIT#<arcId>#<key>
 *     the deposit intent, written before anything is sent (as a purchase's); keys scoped to the depositor.
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
  poolDay: (gameId: string, day: string) => ({ pk: `POOL#${gameId}`, sk: `DAY#${day}` }),
  POOL_DAY_PREFIX: 'DAY#',
  allowance: (arcId: string, gameId: string) => ({ pk: `ALLOWANCE#${arcId}`, sk: `GAME#${gameId}` }),
  allowanceSpend: (arcId: string, gameId: string, day: string) => ({
    pk: `ALLOWANCE#${arcId}`,
    sk: `SPENT#${day}#${gameId}`,
  }),
  periodFund: (gameId: string, tournamentId: string, periodId: string) => ({
    pk: `TFUND#${gameId}#${tournamentId}`,
    sk: `PERIOD#${periodId}`,
  }),
  deposit: (gameId: string, tournamentId: string, arcId: string, idempotencyKey: string) => ({
    pk: `TFUND#${gameId}#${tournamentId}`,
    sk: `DEPOSIT#${arcId}#${idempotencyKey}`,
  }),
  allowancePartition: (arcId: string) => `ALLOWANCE#${arcId}`,
  ALLOWANCE_PREFIX: 'GAME#',
  spentPrefix: (day: string) => `SPENT#${day}#`,
};

/** The rewards table's name. */
export const rewardsTable = (): string => settings().REWARDS_TABLE;
