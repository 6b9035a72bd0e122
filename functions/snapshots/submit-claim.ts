import { walletSignerFromConfig } from '../../lib/adapters/wallet-signer.js';
import { bearerAuthenticator } from '../../lib/auth/index.js';
import { chainFromConfig } from '../../lib/chain/index.js';
import { route } from '../../lib/http/route.js';
import {
  claimStores,
  loadDistributionVault,
  noteClaimSignature,
  recordNewClaim,
  type SubmitClaimDeps,
  submitClaim,
  submitClaimContract,
} from '../../lib/snapshots/index.js';
import { loadWallet } from '../../lib/user/index.js';

export const sideEffects: SubmitClaimDeps = {
  chain: chainFromConfig(),
  signer: walletSignerFromConfig(loadWallet),
  loadWallet,
  ...claimStores,
  loadVault: loadDistributionVault,
  recordNewClaim,
  noteClaimSignature,
};

export const handler = route(
  submitClaimContract,
  async ({ auth, body }) => ({ data: await submitClaim(auth, body, sideEffects) }),
  { bearer: bearerAuthenticator },
);
