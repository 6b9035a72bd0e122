import { walletSignerFromConfig } from '../../lib/adapters/wallet-signer.js';
import { chainFromConfig } from '../../lib/chain/index.js';
import { observed } from '../../lib/core/observed.js';
import { now } from '../../lib/core/time.js';
import { launchTask, reserveStage, type StageDeps } from '../../lib/launcher/index.js';
import { loadWallet } from '../../lib/user/index.js';

export const sideEffects: StageDeps = {
  chain: chainFromConfig(),
  signer: walletSignerFromConfig(loadWallet),
  now,
};

/** Launch state machine task: the reserve stage (see infra/launch-state-machine.yml). */
export const handler = observed(launchTask(reserveStage, sideEffects));
