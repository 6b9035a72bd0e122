import { route } from '../../lib/http/route.js';
import {
  getSnapshotObject,
  getSnapshotProof,
  getSnapshotProofContract,
  getSummary,
  type ReadDeps,
} from '../../lib/snapshots/index.js';

export const sideEffects: ReadDeps = { getSummary, getObject: getSnapshotObject };

export const handler = route(getSnapshotProofContract, async ({ params }) => ({
  data: await getSnapshotProof(params.tokenMint, params.userAddress, sideEffects),
}));
