import { route } from '../../lib/http/route.js';
import {
  airdropCoinMints,
  getSnapshot,
  getSnapshotContract,
  getSnapshotObject,
  getSummary,
  type SnapshotReadDeps,
} from '../../lib/snapshots/index.js';

export const sideEffects: SnapshotReadDeps = {
  getSummary,
  getObject: getSnapshotObject,
  airdropCoinMints,
};

export const handler = route(getSnapshotContract, async ({ params }) => ({
  data: await getSnapshot(params.tokenMint, sideEffects),
}));
