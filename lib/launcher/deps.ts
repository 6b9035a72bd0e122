// Production wiring of the launcher: configuration parsed once per container, adapters created once.
import * as z from 'zod/mini';
import { walletSignerFromConfig } from '../adapters/wallet-signer.js';
import { chainFromConfig, chainReaderFromConfig } from '../chain/index.js';
import { loadConfig } from '../core/config.js';
import type { CompleteDeps } from './complete.js';
import { startLaunchExecution } from './executions.js';
import { loadWallet } from './repository.js';
import type { LaunchDeps } from './service.js';
import type { StageDeps } from './stages.js';

const launchConfigSchema = z.object({
  /** ARN of the launch state machine (serverless.yml gives it to the launch function). */
  LAUNCH_STATE_MACHINE_ARN: z.string().check(z.minLength(1)),
  /** Public base URL of the API; a coin's metadata uri is its game's record there. */
  PUBLIC_API_URL: z.url({ protocol: /^https?$/ }),
});

const now = () => new Date();

/** POST /token-launcher/launch. */
export const launchDeps = (): LaunchDeps => {
  const config = loadConfig(launchConfigSchema);
  const chain = chainReaderFromConfig();
  return {
    now,
    getBalance: (address) => chain.getBalance(address),
    startExecution: (jobId) => startLaunchExecution(config.LAUNCH_STATE_MACHINE_ARN, jobId),
    publicApiUrl: config.PUBLIC_API_URL,
  };
};

/** POST /token-launcher/complete-launch. */
export const completeDeps = (): CompleteDeps => ({ chain: chainReaderFromConfig(), now });

let signer: StageDeps['signer'] | undefined;

/** The launch state machine's tasks. */
export const stageDeps = (): StageDeps => {
  signer ??= walletSignerFromConfig(loadWallet);
  return { chain: chainFromConfig(), signer, now };
};
