import { route } from '../../lib/http/route.js';
import { getSnapshotContract } from '../../lib/snapshots/contracts.js';
import { readDeps } from '../../lib/snapshots/read-deps.js';
import { getSnapshot } from '../../lib/snapshots/service.js';

export const handler = route(getSnapshotContract, async ({ params }) => ({
  data: await getSnapshot(readDeps(), params.tokenMint),
}));
