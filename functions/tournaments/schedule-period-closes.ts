import { settings } from '../../lib/core/config.js';
import { observed } from '../../lib/core/observed.js';
import { now } from '../../lib/core/time.js';
import { sendSettlementMessages } from '../../lib/rewards/index.js';
import { scheduleTournamentCloses } from '../../lib/tournaments/index.js';

settings(); // parsed at cold start: a misconfigured container fails here, naming the setting

/** Scheduled (TOURNAMENT_CLOSE_RATE, every minute): queues each tournament period due to close on the settlement queue. */
export const handler = observed(() => scheduleTournamentCloses({ send: sendSettlementMessages, now }));
