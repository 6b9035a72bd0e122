// Public surface of the launcher domain: code outside lib/launcher imports it from here only.
import type { Contract } from '../core/contract.js';
import { completeLaunchContract, getLaunchJobContract, launchGameCoinContract } from './contracts.js';

export { openLaunchKeys } from './coin.js';
export { getCoin } from './coin-repository.js';
export type { CompleteDeps } from './complete.js';
export { completeLaunch } from './complete.js';
export { completeLaunchContract, getLaunchJobContract, launchGameCoinContract } from './contracts.js';
export { INITIAL_CURVE } from './curve.js';
export { startLaunchExecution } from './execution-start.js';
export { describeLaunchExecution, launchExecutionArn, stopLaunchExecution } from './executions.js';
export { failTask } from './fail.js';
export { endCoin } from './lifecycle.js';
export { getJob, getMintJobId } from './repository.js';
export type { LaunchDeps } from './service.js';
export { getLaunchJob, launchGameCoin } from './service.js';
export type { StageDeps } from './stages.js';
export { buyStage, completeStage, mintStage, reserveStage } from './stages.js';
export type { SweepDeps } from './sweeper.js';
export { sweepJob, sweepLaunchJobs } from './sweeper.js';
export { launchTask } from './task.js';

/** The domain's operations in the public API, in the order of the OpenAPI document (lib/api/catalogue.ts). */
export const contracts: readonly Contract[] = [
  launchGameCoinContract,
  getLaunchJobContract,
  completeLaunchContract,
];
