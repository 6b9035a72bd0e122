import { route } from '../../lib/http/route.js';
import {
  airdropCoinMints,
  getSnapshotObject,
  getSnapshotProof,
  getSnapshotProofContract,
  getSummary,
  type SnapshotReadDeps,
} from '../../lib/snapshots/index.js';

export const sideEffects: SnapshotReadDeps = {
  getSummary,
  getObject: getSnapshotObject,
  airdropCoinMints,
};

export const handler = route(getSnapshotProofContract, async ({ params }) => ({
  data: await getSnapshotProof(params.tokenMint, params.userAddress, sideEffects),
}));
