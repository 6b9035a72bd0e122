import { route } from '../../lib/http/route.js';
import { listSnapshotHoldersContract } from '../../lib/snapshots/contracts.js';
import { readDeps } from '../../lib/snapshots/read-deps.js';
import { listSnapshotHolders } from '../../lib/snapshots/service.js';

export const handler = route(listSnapshotHoldersContract, ({ params, query }) =>
  listSnapshotHolders(readDeps(), params.tokenMint, query),
);
