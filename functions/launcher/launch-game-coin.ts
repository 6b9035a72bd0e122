import { bearerOnly } from '../../lib/auth/index.js';
import { chainReaderFromConfig } from '../../lib/chain/index.js';
import { requireSetting, settings } from '../../lib/core/config.js';
import { now } from '../../lib/core/time.js';
import { route } from '../../lib/http/route.js';
import {
  type LaunchDeps,
  launchGameCoin,
  launchGameCoinContract,
  startLaunchExecution,
} from '../../lib/launcher/index.js';

const chain = chainReaderFromConfig();

export const sideEffects: LaunchDeps = {
  now,
  getBalance: (address) => chain.getBalance(address),
  // CloudFormation gives this function the state machine's ARN (serverless.yml), so it is read when used.
  startExecution: (jobId) => startLaunchExecution(requireSetting('LAUNCH_STATE_MACHINE_ARN'), jobId),
  publicApiUrl: settings().PUBLIC_API_URL,
};

export const handler = route(
  launchGameCoinContract,
  async ({ auth, body }) => ({ data: await launchGameCoin(auth, body, sideEffects) }),
  bearerOnly,
);
