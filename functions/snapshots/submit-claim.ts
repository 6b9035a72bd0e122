import { walletSignerFromConfig } from '../../lib/adapters/wallet-signer.js';
import { bearerAuthenticator } from '../../lib/auth/index.js';
import { chainFromConfig } from '../../lib/chain/index.js';
import { now } from '../../lib/core/time.js';
import { route } from '../../lib/http/route.js';
import {
  getSnapshotObject,
  getSummary,
  listClaimRecords,
  loadDistributionVault,
  recordClaim,
  type SubmitClaimDeps,
  submitClaim,
  submitClaimContract,
} from '../../lib/snapshots/index.js';
import { loadWallet } from '../../lib/user/index.js';

export const sideEffects: SubmitClaimDeps = {
  chain: chainFromConfig(),
  signer: walletSignerFromConfig(loadWallet),
  loadWallet,
  getSummary,
  getObject: getSnapshotObject,
  loadVault: loadDistributionVault,
  listClaimRecords,
  recordClaim,
  now,
};

export const handler = route(
  submitClaimContract,
  async ({ auth, body }) => ({ data: await submitClaim(auth, body, sideEffects) }),
  { bearer: bearerAuthenticator },
);
