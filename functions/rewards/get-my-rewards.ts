import { playerOrGame } from '../../lib/auth/index.js';
import { now } from '../../lib/core/time.js';
import { route } from '../../lib/http/route.js';
import { getMyRewardsContract, type MyRewardsDeps, myRewards } from '../../lib/rewards/index.js';
import { claimableCoinAllocations, coinAllocationDeps } from '../../lib/snapshots/index.js';
import { loadWallet } from '../../lib/user/index.js';

const allocationDeps = coinAllocationDeps();

export const sideEffects: MyRewardsDeps = {
  walletOf: async (arcId) => (await loadWallet(arcId))?.address ?? null,
  claimableCoinAllocations: (wallet) => claimableCoinAllocations(wallet, allocationDeps),
  now,
};

export const handler = route(
  getMyRewardsContract,
  ({ auth, query }) => myRewards(auth, { limit: query.limit, offset: query.offset }, sideEffects),
  playerOrGame,
);
