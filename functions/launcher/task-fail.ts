import { settings } from '../../lib/core/config.js';
import { observed } from '../../lib/core/observed.js';
import { failTask } from '../../lib/launcher/index.js';

settings(); // parsed at cold start: a misconfigured container fails here, naming the setting

/** Launch state machine Catch target: marks the job failed (see infra/launch-state-machine.yml). */
export const handler = observed(failTask);
