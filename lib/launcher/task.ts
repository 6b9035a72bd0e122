// The Lambda handler shape of the launch state machine's tasks: parse the state input with zod, run one stage
// with the dependencies its function built, return the next state's input. Errors propagate with their names, which the
// state machine's Retry (transient) and Catch (everything else) match on.
import * as z from 'zod/mini';
import { settings } from '../core/config.js';
import { logger } from '../core/logger.js';
import type { StageDeps, StageResult } from './stages.js';

const stageInput = z.object({ jobId: z.uuid() });

type Stage = (jobId: string, deps: StageDeps) => Promise<StageResult>;

/** A task handler running `stage` for the job named in its input. */
export const launchTask = (stage: Stage, deps: StageDeps) => {
  settings(); // fail the cold start, not the first execution, when misconfigured
  return async (event: unknown): Promise<StageResult> => {
    const { jobId } = stageInput.parse(event);
    logger.appendKeys({ jobId });
    return stage(jobId, deps);
  };
};
