import { settings } from '../../lib/core/config.js';
import { observed } from '../../lib/core/observed.js';
import { now } from '../../lib/core/time.js';
import { gamesActiveOn } from '../../lib/play/index.js';
import { scheduleSettlements, sendSettlementMessages } from '../../lib/rewards/index.js';

settings(); // parsed at cold start: a misconfigured container fails here, naming the setting

/** Scheduled (SETTLEMENT_RATE, hourly): queues one settlement per unsettled game with activity on each due UTC day. */
export const handler = observed(() =>
  scheduleSettlements({ gamesActiveOn, send: sendSettlementMessages, now }),
);
