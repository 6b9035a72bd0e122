// The launch sweeper (a scheduled function): every launch job ends. A job still open past its deadline — its
// execution timed out (Step Functions skips the states' Catch then), was stopped, failed before MarkFailed ran, or
// never started — is failed through MarkFailed's own path (failStage), which frees the game's launch lock and the
// symbol reservation. The deadline lies beyond the execution timeout, so no execution still drives such a job.
import { logger } from '../core/logger.js';
import { countMetricBy } from '../core/metrics.js';
import { errorFields } from '../core/original-stack.js';
import type { ExecutionStatus } from './executions.js';
import { failStage } from './fail.js';
import { isOpen, JOB_DEADLINE_MS, type JobRecord } from './model.js';
import * as repo from './repository.js';

/** The launch's execution, through the Step Functions API. */
export interface LaunchExecutions {
  status: (job: JobRecord) => Promise<ExecutionStatus>;
  stop: (job: JobRecord, cause: string) => Promise<void>;
}

export interface SweepDeps {
  now: () => Date;
  /** Absent, or failing: the job's own deadline decides alone. */
  executions?: LaunchExecutions;
  /** Jobs handled per run (the rest wait for the next run). Default 100. */
  limit?: number;
}

export interface SweptJob {
  jobId: string;
  /** What Step Functions said of its execution (UNKNOWN when it could not be asked). */
  execution: ExecutionStatus | 'UNKNOWN';
  status: JobRecord['status'];
}

// Said to the user (the job's error), so no internals: what happened to the run, in words.
const WHY: Record<SweptJob['execution'], string> = {
  RUNNING: 'it was still running and has been stopped',
  TIMED_OUT: 'it timed out',
  ABORTED: 'it was stopped',
  FAILED: 'it ended on an error',
  SUCCEEDED: 'it ended without completing the launch',
  MISSING: 'it never started',
  UNKNOWN: 'it did not finish',
};

const executionOf = async (job: JobRecord, deps: SweepDeps): Promise<SweptJob['execution']> => {
  if (!deps.executions) return 'UNKNOWN';
  try {
    const status = await deps.executions.status(job);
    if (status === 'RUNNING') await deps.executions.stop(job, 'The launch job passed its deadline');
    return status;
  } catch (error) {
    logger.warn('launch execution could not be checked; the job deadline decides', {
      jobId: job.jobId,
      ...errorFields(error),
    });
    return 'UNKNOWN';
  }
};

/**
 * Fail one job if it is still open past its deadline at `deps.now()` (its running execution stopped first); undefined
 * when it is not (closed, or not yet due).
 */
export const sweepJob = async (jobId: string, deps: SweepDeps): Promise<SweptJob | undefined> => {
  const now = deps.now();
  const job = await repo.getJob(jobId);
  if (!job || !isOpen(job) || !job.deadlineAt || Date.parse(job.deadlineAt) > now.getTime()) return undefined;
  const execution = await executionOf(job, deps);
  const minutes = Math.round(JOB_DEADLINE_MS / 60_000);
  const closed = await failStage(
    jobId,
    {
      Error: 'LaunchError',
      Cause: `the launch did not finish within ${minutes} minutes (${WHY[execution]})`,
    },
    deps.now,
  );
  logger.warn('overdue launch job swept', { jobId, execution, status: closed.status });
  return { jobId, execution, status: closed.status };
};

/** Fail every open job whose deadline has passed (up to `limit` per run; the rest wait for the next run). */
export const sweepLaunchJobs = async (deps: SweepDeps): Promise<{ swept: SweptJob[] }> => {
  countMetricBy('ScheduleRuns', { schedule: 'launch-sweep' });
  const swept: SweptJob[] = [];
  for (const jobId of await repo.overdueJobIds(deps.now().toISOString(), deps.limit ?? 100)) {
    // The index is eventually consistent: sweepJob re-reads the job, which decides.
    const outcome = await sweepJob(jobId, deps);
    if (outcome) swept.push(outcome);
  }
  return { swept };
};
