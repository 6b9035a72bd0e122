import { route } from '../../lib/http/route.js';
import { getClaimStatus } from '../../lib/snapshots/claims.js';
import { getClaimStatusContract } from '../../lib/snapshots/contracts.js';
import { claimStatusDeps } from '../../lib/snapshots/deps.js';

export const handler = route(getClaimStatusContract, async ({ params }) => ({
  data: await getClaimStatus(claimStatusDeps(), params.gtokenAddress, params.wallet),
}));
