// GET /rewards/me: what the caller earned across games — settlement payouts of rewards pools (SOL) and claimable
// game-coin allocations (the emission's, through a port the function file wires, so that rewards does not import
// snapshots).
import { type AuthContext, isGameScoped } from '../core/auth.js';
import { allowancesOf } from './allowances/allowance.js';
import { payoutsOf } from './settlement/queries.js';

/** One claimable game-coin allocation of a wallet (airdrop and emission, cumulative). */
export interface CoinAllocation {
  gameId: string;
  gtokenAddress: string;
  allocated: string;
  claimed: string;
  claimable: string;
}

/**
 * Port: a wallet's claimable coin allocations across games (the emission's `claimableCoinAllocations`, wired when
 * that domain provides it). Amounts in the coin's base units.
 */
export type ClaimableCoinAllocations = (wallet: string) => Promise<CoinAllocation[]>;

export interface MyRewardsDeps {
  /** The caller's embedded wallet (the user domain's). */
  walletOf: (arcId: string) => Promise<string | null>;
  claimableCoinAllocations?: ClaimableCoinAllocations | undefined;
  now: () => Date;
}

/**
 * GET /rewards/me: the caller's payouts (paged), the purchase allowances it granted to games with what is left of
 * them today, and, when the emission is wired, claimable coin allocations.
 */
export const myRewards = async (
  auth: AuthContext,
  page: { limit: number; offset: number },
  deps: MyRewardsDeps,
) => {
  // A game-scoped token (session or grant) reads the player's rewards in its own game only.
  const only = isGameScoped(auth) ? auth.gameId : undefined;
  const inGame = <T extends { gameId: string }>(list: T[]) =>
    only ? list.filter((x) => x.gameId === only) : list;
  const [history, wallet, allowances] = await Promise.all([
    payoutsOf(auth.userId, page, only),
    deps.walletOf(auth.userId),
    allowancesOf(auth.userId, deps.now()).then(inGame),
  ]);
  const coins = inGame(
    wallet && deps.claimableCoinAllocations ? await deps.claimableCoinAllocations(wallet) : [],
  );
  const confirmed = history.payouts.filter((p) => p.status === 'confirmed');
  return {
    data: {
      arcId: auth.userId,
      wallet,
      payouts: history.payouts,
      claimableCoins: coins,
      allowances,
      coinAllocationsAvailable: deps.claimableCoinAllocations !== undefined,
      pageTotals: {
        receivedLamports: confirmed.reduce((sum, p) => sum + BigInt(p.sentLamports), 0n).toString(),
        receivedUsd: Math.round(confirmed.reduce((sum, p) => sum + (p.usd ?? 0), 0) * 100) / 100,
      },
    },
    meta: { limit: page.limit, offset: page.offset, total: history.total },
  };
};
