import { route } from '../../lib/http/route.js';
import {
  getSnapshotObject,
  getSummary,
  listSnapshotHolders,
  listSnapshotHoldersContract,
  type ReadDeps,
} from '../../lib/snapshots/index.js';

export const sideEffects: ReadDeps = { getSummary, getObject: getSnapshotObject };

export const handler = route(listSnapshotHoldersContract, ({ params, query }) =>
  listSnapshotHolders(params.tokenMint, query, sideEffects),
);
