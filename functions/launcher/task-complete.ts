import { completeStage } from '../../lib/launcher/stages.js';
import { launchTask } from '../../lib/launcher/task.js';

/** Launch state machine task: the complete stage (see infra/launch-state-machine.yml). */
export const handler = launchTask(completeStage);
