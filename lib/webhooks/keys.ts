// The webhooks table (WebhooksTable): one item per endpoint under its game, a per-game count that bounds them,
// and, under each endpoint, its deliveries (one per event) and their attempts (the delivery log). The events
// themselves are the outbox's items (lib/outbox/outbox.ts), in the same table.
export const webhookKeys = {
  endpoint: (gameId: string, endpointId: string) => ({ pk: `GAME#${gameId}`, sk: `ENDPOINT#${endpointId}` }),
  /** The number of endpoints of a game: bounds them with a conditional update in the creating transaction. */
  endpointCount: (gameId: string) => ({ pk: `GAME#${gameId}`, sk: 'ENDPOINTS' }),
  delivery: (endpointId: string, eventId: string) => ({
    pk: `ENDPOINT#${endpointId}`,
    sk: `DELIVERY#${eventId}`,
  }),
  /** Attempt n (1-based) of a delivery; event ids sort by time, so key order is newest-last. */
  attempt: (endpointId: string, eventId: string, attempt: number) => ({
    pk: `ENDPOINT#${endpointId}`,
    sk: `ATTEMPT#${eventId}#${String(attempt).padStart(4, '0')}`,
  }),
};

export const ENDPOINT_PREFIX = 'ENDPOINT#';
export const ATTEMPT_PREFIX = 'ATTEMPT#';
export const PENDING_INDEX = 'byOutboxPending';
