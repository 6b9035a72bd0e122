import { route } from '../../lib/http/route.js';
import {
  airdropCoinMints,
  getSnapshotObject,
  getSummary,
  listSnapshotHolders,
  listSnapshotHoldersContract,
  type SnapshotReadDeps,
} from '../../lib/snapshots/index.js';

export const sideEffects: SnapshotReadDeps = {
  getSummary,
  getObject: getSnapshotObject,
  airdropCoinMints,
};

export const handler = route(listSnapshotHoldersContract, ({ params, query }) =>
  listSnapshotHolders(params.tokenMint, query, sideEffects),
);
