import { failTask } from '../../lib/launcher/fail.js';

/** Launch state machine Catch target: marks the job failed (see infra/launch-state-machine.yml). */
export const handler = failTask;
