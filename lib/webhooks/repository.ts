// WebhooksTable reads and writes (keys: ./keys.ts). Every state change of a delivery is conditional on the
// attempt it belongs to, so duplicate queue messages and concurrent workers make one attempt each, not two.
import {
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { dynamo, isConditionFailure, type TransactItem, transactNamed } from '../adapters/dynamodb.js';
import { settings } from '../core/config.js';
import { EVENT_RETENTION_DAYS, eventKey } from '../outbox/index.js';
import { ATTEMPT_PREFIX, ENDPOINT_PREFIX, PENDING_INDEX, webhookKeys } from './keys.js';
import {
  type AttemptRecord,
  type DeliveryRecord,
  DISABLE_AFTER_FAILURES,
  type EndpointRecord,
  MAX_ENDPOINTS_PER_GAME,
} from './model.js';

type Item = Record<string, NativeAttributeValue>;
const table = () => settings().WEBHOOKS_TABLE;
const expiresAt = (from: string) => Math.floor(Date.parse(from) / 1000) + EVENT_RETENTION_DAYS * 86_400;

const strip = <T>(item: Item | undefined): T | undefined => {
  if (!item) return undefined;
  const { pk: _pk, sk: _sk, expiresAt: _e, ...rest } = item;
  return rest as T;
};

export const getEndpoint = async (gameId: string, endpointId: string) =>
  strip<EndpointRecord>(
    (
      await dynamo().send(
        new GetCommand({
          TableName: table(),
          Key: webhookKeys.endpoint(gameId, endpointId),
          ConsistentRead: true,
        }),
      )
    ).Item,
  );

/** Every endpoint of a game (at most MAX_ENDPOINTS_PER_GAME: one page). */
export const listEndpoints = async (gameId: string): Promise<EndpointRecord[]> => {
  const { Items = [] } = await dynamo().send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': `GAME#${gameId}`, ':prefix': ENDPOINT_PREFIX },
      ConsistentRead: true,
    }),
  );
  return Items.map((item) => strip<EndpointRecord>(item) as EndpointRecord);
};

/**
 * Create an endpoint, counted against its game's bound in the same transaction; false when the bound is reached.
 * Creations racing on the same count conflict: those are tried again.
 */
export const createEndpoint = async (endpoint: EndpointRecord): Promise<boolean> => {
  const writes = {
    count: {
      Update: {
        TableName: table(),
        Key: webhookKeys.endpointCount(endpoint.gameId),
        UpdateExpression: 'ADD #n :one',
        ConditionExpression: 'attribute_not_exists(#n) OR #n < :max',
        ExpressionAttributeNames: { '#n': 'count' },
        ExpressionAttributeValues: { ':one': 1, ':max': MAX_ENDPOINTS_PER_GAME },
      },
    },
    endpoint: {
      Put: {
        TableName: table(),
        Item: { ...webhookKeys.endpoint(endpoint.gameId, endpoint.endpointId), ...endpoint },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  };
  for (let attempt = 0; ; attempt++) {
    const failed = await transactNamed(writes);
    if (!failed) return true;
    const conflict = Object.values(failed).includes('TransactionConflict');
    if (!conflict) return false;
    if (attempt >= 8)
      throw new Error(
        `Creating a webhook endpoint of ${endpoint.gameId} was cancelled: ${JSON.stringify(failed)}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 50 * 2 ** attempt));
  }
};

/**
 * The transaction item that disables an endpoint (`disabledReason`), conditional on the endpoint as read (its
 * `updatedAt`).
 */
export const disableEndpointWrite = (
  gameId: string,
  endpoint: Pick<EndpointRecord, 'endpointId' | 'updatedAt'>,
  reason: string,
  now: string,
): TransactItem => ({
  Update: {
    TableName: table(),
    Key: webhookKeys.endpoint(gameId, endpoint.endpointId),
    UpdateExpression: 'SET enabled = :false, disabledReason = :reason, updatedAt = :now',
    ConditionExpression: 'updatedAt = :prev',
    ExpressionAttributeValues: {
      ':false': false,
      ':reason': reason,
      ':now': now,
      ':prev': endpoint.updatedAt,
    },
  },
});

/** The transaction item checking that a game still has the `count` endpoints read (none created or deleted since). */
export const endpointCountCheck = (gameId: string, count: number): TransactItem => ({
  ConditionCheck: {
    TableName: table(),
    Key: webhookKeys.endpointCount(gameId),
    ConditionExpression: 'attribute_not_exists(#n) OR #n = :n',
    ExpressionAttributeNames: { '#n': 'count' },
    ExpressionAttributeValues: { ':n': count },
  },
});

/** Replace an endpoint, unless it changed (or went) since `previous` was read: false then. */
export const saveEndpoint = async (next: EndpointRecord, previous: EndpointRecord): Promise<boolean> => {
  try {
    await dynamo().send(
      new PutCommand({
        TableName: table(),
        Item: { ...webhookKeys.endpoint(next.gameId, next.endpointId), ...next },
        ConditionExpression: 'updatedAt = :prev',
        ExpressionAttributeValues: { ':prev': previous.updatedAt },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/** Delete an endpoint and give its place back; false when it did not exist. */
export const deleteEndpoint = async (gameId: string, endpointId: string): Promise<boolean> => {
  try {
    await dynamo().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Delete: {
              TableName: table(),
              Key: webhookKeys.endpoint(gameId, endpointId),
              ConditionExpression: 'attribute_exists(pk)',
            },
          },
          {
            Update: {
              TableName: table(),
              Key: webhookKeys.endpointCount(gameId),
              UpdateExpression: 'ADD #n :minus',
              ExpressionAttributeNames: { '#n': 'count' },
              ExpressionAttributeValues: { ':minus': -1 },
            },
          },
        ],
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/**
 * Count an attempt's outcome on its endpoint: a success resets the run of failures; the failure that makes it
 * DISABLE_AFTER_FAILURES disables the endpoint (`disabledReason: failing`) until its studio enables it again.
 */
export const recordEndpointOutcome = async (
  gameId: string,
  endpointId: string,
  ok: boolean,
  now: string,
): Promise<void> => {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: webhookKeys.endpoint(gameId, endpointId),
        UpdateExpression: ok ? 'SET consecutiveFailures = :zero' : 'ADD consecutiveFailures :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: ok ? { ':zero': 0 } : { ':one': 1 },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
  if (!ok) await disableIfFailing(gameId, endpointId, now);
};

const disableIfFailing = async (gameId: string, endpointId: string, now: string) => {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: webhookKeys.endpoint(gameId, endpointId),
        UpdateExpression: 'SET enabled = :false, disabledReason = :failing, updatedAt = :now',
        ConditionExpression: 'enabled = :true AND consecutiveFailures >= :limit',
        ExpressionAttributeValues: {
          ':false': false,
          ':true': true,
          ':failing': 'failing',
          ':now': now,
          ':limit': DISABLE_AFTER_FAILURES,
        },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};

export interface StoredEvent {
  eventId: string;
  type: string;
  gameId: string;
  payload: string;
  createdAt: string;
}

export const getEvent = async (eventId: string) =>
  strip<StoredEvent & { outboxPending?: string }>(
    (
      await dynamo().send(
        new GetCommand({ TableName: table(), Key: eventKey(eventId), ConsistentRead: true }),
      )
    ).Item,
  );

/** Ids of events still pending in one shard of the outbox, oldest first. */
export const pendingEventIds = async (shard: number, limit: number): Promise<string[]> => {
  const { Items = [] } = await dynamo().send(
    new QueryCommand({
      TableName: table(),
      IndexName: PENDING_INDEX,
      KeyConditionExpression: 'outboxPending = :p',
      ExpressionAttributeValues: { ':p': `p${shard}` },
      Limit: limit,
    }),
  );
  return Items.map((item) => String(item.pk).slice('EVENT#'.length));
};

/**
 * Take a pending event for relaying until `until`: false-y when it is not pending (relayed already, or unknown)
 * or another relay holds it (the worker's immediate relay and the schedule's run, or two runs). A relay that dies
 * holding it leaves it pending: the first run after `until` takes it.
 */
export const claimRelay = async (eventId: string, now: string, until: string) => {
  try {
    const { Attributes } = await dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: eventKey(eventId),
        UpdateExpression: 'SET relayClaimUntil = :until',
        ConditionExpression:
          'attribute_exists(outboxPending) AND (attribute_not_exists(relayClaimUntil) OR relayClaimUntil < :now)',
        ExpressionAttributeValues: { ':until': until, ':now': now },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return strip<StoredEvent>(Attributes);
  } catch (error) {
    if (isConditionFailure(error)) return undefined;
    throw error;
  }
};

/** The event's deliveries are recorded and queued: it leaves the pending index. */
export const markRelayed = async (eventId: string): Promise<void> => {
  await dynamo().send(
    new UpdateCommand({
      TableName: table(),
      Key: eventKey(eventId),
      UpdateExpression: 'REMOVE outboxPending, relayClaimUntil',
    }),
  );
};

/** Record a delivery (once per event and endpoint); false when it exists already. */
/** A delivery of an event to an endpoint not attempted yet, due at `at`. */
export const pendingDelivery = (
  ids: { endpointId: string; gameId: string; eventId: string; eventType: DeliveryRecord['eventType'] },
  at: string,
): DeliveryRecord => ({
  ...ids,
  status: 'pending',
  attempts: 0,
  nextAttemptAt: at,
  createdAt: at,
  updatedAt: at,
});

export const putDelivery = async (delivery: DeliveryRecord): Promise<boolean> => {
  try {
    await dynamo().send(
      new PutCommand({
        TableName: table(),
        Item: {
          ...webhookKeys.delivery(delivery.endpointId, delivery.eventId),
          ...delivery,
          expiresAt: expiresAt(delivery.createdAt),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

export const getDelivery = async (endpointId: string, eventId: string) =>
  strip<DeliveryRecord>(
    (
      await dynamo().send(
        new GetCommand({
          TableName: table(),
          Key: webhookKeys.delivery(endpointId, eventId),
          ConsistentRead: true,
        }),
      )
    ).Item,
  );

/**
 * Take attempt `attempt` of a pending delivery: only after attempt - 1, or again when a worker that took it died
 * (its claim ran out). False for a duplicate message or a delivery that is done.
 */
export const claimAttempt = async (
  endpointId: string,
  eventId: string,
  attempt: number,
  now: string,
  claimUntil: string,
): Promise<boolean> => {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: webhookKeys.delivery(endpointId, eventId),
        UpdateExpression: 'SET attempts = :n, claimUntil = :until, updatedAt = :now',
        ConditionExpression:
          '#status = :pending AND (attempts = :prev OR (attempts = :n AND claimUntil < :now))',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':n': attempt,
          ':prev': attempt - 1,
          ':until': claimUntil,
          ':now': now,
          ':pending': 'pending',
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/** The outcome of an attempt: its log entry and the delivery's new state, together. */
export const finishAttempt = async (
  record: AttemptRecord,
  delivery: Pick<DeliveryRecord, 'status' | 'nextAttemptAt' | 'lastError' | 'lastStatusCode'>,
  figures: TransactItem[] = [],
): Promise<void> => {
  await dynamo().send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: table(),
            Item: {
              ...webhookKeys.attempt(record.endpointId, record.eventId, record.attempt),
              ...record,
              expiresAt: expiresAt(record.at),
            },
          },
        },
        {
          Update: {
            TableName: table(),
            Key: webhookKeys.delivery(record.endpointId, record.eventId),
            UpdateExpression:
              'SET #status = :status, nextAttemptAt = :next, lastError = :error, lastStatusCode = :code, ' +
              'updatedAt = :now REMOVE claimUntil',
            ConditionExpression: 'attempts = :n',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':status': delivery.status,
              ':next': delivery.nextAttemptAt ?? null,
              ':error': delivery.lastError ?? null,
              ':code': delivery.lastStatusCode ?? null,
              ':now': record.at,
              ':n': record.attempt,
            },
          },
        },
        ...figures,
      ],
    }),
  );
};

/** A delivery given up without an attempt (its endpoint disabled or deleted). */
export const abandonDelivery = async (endpointId: string, eventId: string, reason: string, now: string) => {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: webhookKeys.delivery(endpointId, eventId),
        UpdateExpression:
          'SET #status = :failed, lastError = :reason, nextAttemptAt = :null, updatedAt = :now',
        ConditionExpression: '#status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':failed': 'failed',
          ':pending': 'pending',
          ':reason': reason,
          ':null': null,
          ':now': now,
        },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
};

/**
 * Start a delivery over (manual redeliver): pending again from attempt 1, unless an attempt is running or due
 * (false). The attempts already logged stay in the log; the new ones follow them.
 */
export const restartDelivery = async (
  endpointId: string,
  eventId: string,
  now: string,
): Promise<{ restarted: boolean; firstAttempt: number }> => {
  try {
    const { Attributes } = await dynamo().send(
      new UpdateCommand({
        TableName: table(),
        Key: webhookKeys.delivery(endpointId, eventId),
        UpdateExpression: 'SET #status = :pending, nextAttemptAt = :now, updatedAt = :now REMOVE claimUntil',
        ConditionExpression: 'attribute_exists(pk) AND #status <> :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':pending': 'pending', ':now': now },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return { restarted: true, firstAttempt: Number(Attributes?.attempts ?? 0) + 1 };
  } catch (error) {
    if (isConditionFailure(error)) return { restarted: false, firstAttempt: 0 };
    throw error;
  }
};

/** An endpoint's attempts, newest first, a page at a time (`after`: the sort key the previous page ended at). */
export const listAttempts = async (
  endpointId: string,
  limit: number,
  after: string | undefined,
): Promise<{ items: AttemptRecord[]; last: string | undefined }> => {
  const pk = `ENDPOINT#${endpointId}`;
  const { Items = [], LastEvaluatedKey } = await dynamo().send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': pk, ':prefix': ATTEMPT_PREFIX },
      ScanIndexForward: false,
      Limit: limit,
      ...(after ? { ExclusiveStartKey: { pk, sk: after } } : {}),
    }),
  );
  return {
    items: Items.map((item) => strip<AttemptRecord>(item) as AttemptRecord),
    last: LastEvaluatedKey ? String(LastEvaluatedKey.sk) : undefined,
  };
};
