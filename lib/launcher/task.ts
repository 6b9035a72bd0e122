// The Lambda handler shape of the launch state machine's tasks: parse the state input with zod, run one stage
// with the production dependencies, return the next state's input. Errors propagate with their names, which the
// state machine's Retry (transient) and Catch (everything else) match on.
import * as z from 'zod/mini';
import { logger } from '../core/logger.js';
import { stageDeps } from './deps.js';
import type { StageDeps, StageResult } from './stages.js';

const stageInput = z.object({ jobId: z.uuid() });

type Stage = (jobId: string, deps: StageDeps) => Promise<StageResult>;

/** A task handler running `stage` for the job named in its input. */
export const launchTask =
  (stage: Stage) =>
  async (event: unknown): Promise<StageResult> => {
    const { jobId } = stageInput.parse(event);
    logger.appendKeys({ jobId });
    return stage(jobId, stageDeps());
  };
