import { settings } from '../../lib/core/config.js';
import { observed } from '../../lib/core/observed.js';
import { queueDeliveries, relayPending } from '../../lib/webhooks/index.js';

settings(); // parsed at cold start: a misconfigured container fails here, naming the setting

export const sideEffects = { queue: queueDeliveries };

/** The outbox relay's schedule: queues the deliveries of every event still pending in the outbox. */
export const handler = observed(
  async (): Promise<{ relayed: number }> => ({
    relayed: await relayPending(sideEffects),
  }),
);
