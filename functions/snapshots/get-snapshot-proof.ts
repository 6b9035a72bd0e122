import { route } from '../../lib/http/route.js';
import { getSnapshotProofContract } from '../../lib/snapshots/contracts.js';
import { readDeps } from '../../lib/snapshots/read-deps.js';
import { getSnapshotProof } from '../../lib/snapshots/service.js';

export const handler = route(getSnapshotProofContract, async ({ params }) => ({
  data: await getSnapshotProof(readDeps(), params.tokenMint, params.userAddress),
}));
