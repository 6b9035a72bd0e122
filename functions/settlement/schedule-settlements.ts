import { settings } from '../../lib/core/config.js';
import { observed } from '../../lib/core/observed.js';
import { now } from '../../lib/core/time.js';
import { scheduleSettlements, sendSettlementMessages } from '../../lib/settlement/index.js';

settings(); // parsed at cold start: a misconfigured container fails here, naming the setting

/** Scheduled (SETTLEMENT_RATE, hourly): queues one settlement per game with players on each due UTC day. */
export const handler = observed(() => scheduleSettlements({ send: sendSettlementMessages, now }));
