import { chainReaderFromConfig } from '../../lib/chain/index.js';
import { route } from '../../lib/http/route.js';
import {
  type ClaimStatusDeps,
  claimStores,
  findEmissionSchedule,
  findVaultAddress,
  getClaimStatus,
  getClaimStatusContract,
} from '../../lib/snapshots/index.js';

// Reads only: the vault's address comes from the launch job, its key stays sealed (and unbundled).
export const sideEffects: ClaimStatusDeps = {
  chain: chainReaderFromConfig(),
  ...claimStores,
  findVaultAddress,
  findEmissionSchedule,
};

export const handler = route(getClaimStatusContract, async ({ params }) => ({
  data: await getClaimStatus(params.gtokenAddress, params.wallet, sideEffects),
}));
