// The launch state machine's Catch target: the job becomes failed with a human-readable error, and the game and
// the symbol are freed for another launch. Kept apart from the stages so its bundle carries no chain code.
import * as z from 'zod/mini';
import { logger } from '../core/logger.js';
import { countMetricBy } from '../core/metrics.js';
import { describeFailure, type TaskFailure } from './failures.js';
import { failJob } from './lock-repository.js';
import { isOpen } from './model.js';
import * as repo from './repository.js';

const failInput = z.object({
  jobId: z.uuid(),
  error: z.object({ Error: z.string(), Cause: z.optional(z.string()) }),
});

/** Mark an open job failed because of `failure`; a job already closed is left as it is. */
export const failStage = async (jobId: string, failure: TaskFailure, now: () => Date) => {
  const job = await repo.getJob(jobId);
  if (!job) throw new Error(`Launch job ${jobId} does not exist`);
  if (isOpen(job)) {
    const error = describeFailure(job.stage, failure);
    logger.warn('launch failed', { jobId, stage: job.stage, error: failure.Error, cause: failure.Cause });
    await failJob(job, error, now().toISOString());
    countMetricBy('LaunchesFinished', { outcome: 'failed' });
  }
  const closed = (await repo.getJob(jobId)) ?? job;
  return { jobId, status: closed.status, progress: closed.progress };
};

/** The task handler: `{jobId, error: {Error, Cause}}` (Catch's ResultPath) → the job marked failed. */
export const failTask = async (event: unknown) => {
  const { jobId, error } = failInput.parse(event);
  logger.appendKeys({ jobId });
  return failStage(jobId, error, () => new Date());
};
