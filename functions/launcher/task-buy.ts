import { buyStage } from '../../lib/launcher/stages.js';
import { launchTask } from '../../lib/launcher/task.js';

/** Launch state machine task: the buy stage (see infra/launch-state-machine.yml). */
export const handler = launchTask(buyStage);
