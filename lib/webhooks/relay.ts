// The outbox relay (docs/webhooks.md, "Outbox"): takes an event still pending in the outbox (named by its writer's
// message, or found by the schedule), records one delivery per subscribed, enabled endpoint of the event's game and
// queues its first attempt, then takes the event off the pending index. Every step is idempotent, so a relay that dies half-way is repeated by the next run:
// deliveries already recorded are not recorded twice, and an attempt queued twice is made once (the attempt claim).
import { OUTBOX_SHARDS } from '../outbox/index.js';
import type { EndpointRecord } from './model.js';
import type { QueuedDelivery } from './queue.js';
import * as repo from './repository.js';

export interface RelayDeps {
  queue: (deliveries: readonly QueuedDelivery[]) => Promise<void>;
  now?: () => Date;
}

/** How long a relay holds an event it took: a relay that died holding it is taken over after this. */
export const RELAY_CLAIM_SECONDS = 30;

/**
 * Relay one event; false when it was not pending (relayed already, or unknown) or another relay holds it: the
 * worker relaying it on the writer's message and the schedule's run relay it once between them.
 */
export const relayEvent = async (eventId: string, deps: RelayDeps): Promise<boolean> => {
  const now = deps.now?.() ?? new Date();
  const until = new Date(now.getTime() + RELAY_CLAIM_SECONDS * 1000).toISOString();
  const event = await repo.claimRelay(eventId, now.toISOString(), until);
  if (!event) return false;
  const subscribed = (await repo.listEndpoints(event.gameId)).filter(
    (endpoint: EndpointRecord) => endpoint.enabled && (endpoint.eventTypes as string[]).includes(event.type),
  );
  const at = now.toISOString();
  const queued: QueuedDelivery[] = [];
  for (const endpoint of subscribed) {
    const created = await repo.putDelivery(
      repo.pendingDelivery(
        { endpointId: endpoint.endpointId, gameId: event.gameId, eventId, eventType: event.type },
        at,
      ),
    );
    // Recorded by a relay that died before queueing it: queue it now (a duplicate attempt is dropped).
    const existing = created ? undefined : await repo.getDelivery(endpoint.endpointId, eventId);
    if (created || (existing?.status === 'pending' && existing.attempts === 0)) {
      queued.push({
        message: { gameId: event.gameId, endpointId: endpoint.endpointId, eventId, attempt: 1 },
        delaySeconds: 0,
      });
    }
  }
  await deps.queue(queued);
  await repo.markRelayed(eventId);
  return true;
};

/** Relay what is pending, each shard's oldest first; returns how many events were relayed. */
export const relayPending = async (deps: RelayDeps, perShard = 100): Promise<number> => {
  let relayed = 0;
  for (let shard = 0; shard < OUTBOX_SHARDS; shard++) {
    for (const eventId of await repo.pendingEventIds(shard, perShard)) {
      if (await relayEvent(eventId, deps)) relayed++;
    }
  }
  return relayed;
};
