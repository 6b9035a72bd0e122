import { settings } from '../../lib/core/config.js';
import { observed } from '../../lib/core/observed.js';
import { scheduleSnapshots } from '../../lib/snapshots/index.js';

settings(); // parsed at cold start: a misconfigured container fails here, naming the setting

/** Scheduled (rate from SNAPSHOT_RATE): queues one snapshot build per coin whose game has an airdrop token. */
export const handler = observed(() => scheduleSnapshots());
