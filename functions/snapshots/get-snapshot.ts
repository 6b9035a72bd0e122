import { route } from '../../lib/http/route.js';
import {
  getSnapshot,
  getSnapshotContract,
  getSnapshotObject,
  getSummary,
  type ReadDeps,
} from '../../lib/snapshots/index.js';

export const sideEffects: ReadDeps = { getSummary, getObject: getSnapshotObject };

export const handler = route(getSnapshotContract, async ({ params }) => ({
  data: await getSnapshot(params.tokenMint, sideEffects),
}));
