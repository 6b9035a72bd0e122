import { scheduleSnapshots } from '../../lib/snapshots/schedule.js';

/** Scheduled (rate from SNAPSHOT_RATE): queues one snapshot build per coin whose game has an airdrop token. */
export const handler = () => scheduleSnapshots();
