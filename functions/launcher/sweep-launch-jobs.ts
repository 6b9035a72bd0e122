import { requireSetting, settings } from '../../lib/core/config.js';
import { observed } from '../../lib/core/observed.js';
import { now } from '../../lib/core/time.js';
import {
  describeLaunchExecution,
  launchExecutionArn,
  type SweepDeps,
  stopLaunchExecution,
  sweepLaunchJobs,
} from '../../lib/launcher/index.js';

settings(); // parsed at cold start: a misconfigured container fails here, naming the setting

// The execution is named after the job: its ARN is known even when the job never recorded it.
const executionArn = (job: { jobId: string; executionArn: string | null }) =>
  job.executionArn ?? launchExecutionArn(requireSetting('LAUNCH_STATE_MACHINE_ARN'), job.jobId);

export const sideEffects: SweepDeps = {
  now,
  executions: {
    status: (job) => describeLaunchExecution(executionArn(job)),
    stop: (job, cause) => stopLaunchExecution(executionArn(job), cause),
  },
};

/** Scheduled: fail the launch jobs still open past their deadline, freeing their game and symbol. */
export const handler = observed(() => sweepLaunchJobs(sideEffects));
