// The transactional outbox of webhook events (docs/webhooks.md, "Outbox"): the code that makes a change adds
// `outboxItem(…)` to the very transaction that makes it, so an event exists exactly when its change committed.
// Once the transaction commits, the writer sends the event ids to the delivery worker (./relay-now.ts, best effort,
// one SQS message); a relay schedule (lib/webhooks/relay.ts) also finds the items still pending through a sparse
// index, so an event whose send was lost is delivered all the same.
import { randomBytes } from 'node:crypto';
import type { TransactItem } from '../adapters/dynamodb.js';
import { settings } from '../core/config.js';
import type { EventData, WebhookEventOf, WebhookEventType } from './events.js';
import { relayOutboxAfterCommit } from './relay-now.js';

/** Shards of the pending index: events of every game are spread over these partitions. */
export const OUTBOX_SHARDS = 4;
/** How long an event (and with it its redelivery) is kept. */
export const EVENT_RETENTION_DAYS = 30;

/** A time-sortable event id (`evt_` + milliseconds in base 36 + 16 random hex), so newest-first is key order. */
export const newEventId = (now = Date.now()): string =>
  `evt_${now.toString(36).padStart(9, '0')}${randomBytes(8).toString('hex')}`;

export const eventKey = (eventId: string) => ({ pk: `EVENT#${eventId}`, sk: 'EVENT' });

/** The stored event: its envelope (the payload as delivered) and the pending marker the relay looks for. */
export const eventRecord = <T extends WebhookEventType>(
  event: WebhookEventOf<T>,
  pending: boolean,
): Record<string, unknown> => ({
  ...eventKey(event.id),
  eventId: event.id,
  type: event.type,
  gameId: event.gameId,
  payload: JSON.stringify(event),
  createdAt: event.timestamp,
  ...(pending ? { outboxPending: `p${Number.parseInt(event.id.slice(-2), 16) % OUTBOX_SHARDS}` } : {}),
  expiresAt: Math.floor(Date.parse(event.timestamp) / 1000) + EVENT_RETENTION_DAYS * 86_400,
});

/** The event envelope for `type` in game `gameId`. */
export const webhookEvent = <T extends WebhookEventType>(
  type: T,
  gameId: string,
  data: EventData<T>,
  at: Date = new Date(),
): WebhookEventOf<T> => ({
  id: newEventId(at.getTime()),
  type,
  version: 1,
  timestamp: at.toISOString(),
  gameId,
  data,
});

/**
 * The transaction item that records one event, to add to the transaction of the change it describes. Once that
 * transaction commits, the event is sent to the delivery worker at once (./relay-now.ts).
 */
export const outboxItem = <T extends WebhookEventType>(
  type: T,
  gameId: string,
  data: EventData<T>,
  at?: Date,
): TransactItem => {
  relayOutboxAfterCommit();
  return {
    Put: {
      TableName: settings().WEBHOOKS_TABLE,
      Item: eventRecord(webhookEvent(type, gameId, data, at), true),
    },
  };
};
