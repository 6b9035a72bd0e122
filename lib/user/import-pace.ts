// The import worker's shared pace at the identity provider (docs/wallets.md, "Import at the provider's pace"):
// the provider allows the app IDP_USER_CREATIONS_PER_MINUTE user creations in any minute
// (IDP_USER_CREATION_WINDOW_SECONDS; a sliding window, a batch counting each user) and answers 429 past it. Every worker reserves its batch's creations here before
// sending it, so concurrent workers together stay under the limit instead of racing into 429s.
//
// One UsersTable item holds the reservations of the last window (time, count) and, after a 429, the time the
// provider said to wait until. A reservation is the earliest time at which the window ending then holds room for
// the batch; it is written with a version condition (a concurrent reservation makes the loser read again), and
// the worker waits until that time before sending. A reservation further away than the caller will wait is not
// made: the caller defers its message instead (importer.ts).
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure } from '../adapters/dynamodb.js';
import { settings } from '../core/config.js';
import { userKeys } from './keys.js';

/** A margin on the provider's window for the requests' latency varying between our clock and its count. */
const MARGIN_MS = 1_000;
/** Reservations written at once by other workers: read again, at most this many times. */
const ATTEMPTS = 20;

export interface ImportPace {
  /**
   * Reserve `count` creations and wait until they may be sent: 0 then. When that is further away than
   * `maxWaitMs`, nothing is reserved and the wait is returned (ms) for the caller to wait elsewhere.
   */
  reserve(count: number, maxWaitMs: number): Promise<number>;
  /** The provider said to wait until `at` (ms since epoch): no reservation starts before it. */
  holdUntil(at: number): Promise<void>;
}

interface Reservation {
  at: number;
  count: number;
}

/** The earliest time from `now` at which the window ending then has room for `count` more (see the header). */
export const nextSlot = (
  log: readonly Reservation[],
  count: number,
  now: number,
  limit: number,
  windowMs: number = 60_000 + MARGIN_MS,
): number => {
  // Never before the last reservation: the log stays in order, so the window ending at a slot is its fullest.
  let at = Math.max(now, log.at(-1)?.at ?? 0);
  for (;;) {
    const inWindow = log.filter((r) => r.at > at - windowMs);
    const used = inWindow.reduce((sum, r) => sum + r.count, 0);
    const oldest = inWindow[0];
    if (used + count <= limit || !oldest) return at;
    at = oldest.at + windowMs;
  }
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The pace shared through the UsersTable (limit: IDP_USER_CREATIONS_PER_MINUTE). */
export const sharedImportPace = (clock: () => number = Date.now): ImportPace => {
  const table = () => settings().USERS_TABLE;
  // The provider limits each app: the pace is the app's.
  const key = () => userKeys.importPace(settings().IDP_APP_ID);
  return {
    reserve: async (count, maxWaitMs) => {
      const limit = settings().IDP_USER_CREATIONS_PER_MINUTE;
      const windowMs = settings().IDP_USER_CREATION_WINDOW_SECONDS * 1000 + MARGIN_MS;
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        const { Item } = await dynamo().send(
          new GetCommand({ TableName: table(), Key: key(), ConsistentRead: true }),
        );
        const log = (Item?.log as Reservation[] | undefined) ?? [];
        const version = (Item?.version as number | undefined) ?? 0;
        const now = clock();
        const from = Math.max(now, (Item?.holdUntil as number | undefined) ?? 0);
        const at = nextSlot(log, count, from, limit, windowMs);
        if (at - now > maxWaitMs) return at - now;
        try {
          await dynamo().send(
            new UpdateCommand({
              TableName: table(),
              Key: key(),
              UpdateExpression: 'SET #log = :log, #version = :next',
              ConditionExpression: 'attribute_not_exists(#version) OR #version = :version',
              ExpressionAttributeNames: { '#log': 'log', '#version': 'version' },
              ExpressionAttributeValues: {
                ':log': [...log.filter((r) => r.at > at - windowMs), { at, count }],
                ':version': version,
                ':next': version + 1,
              },
            }),
          );
        } catch (error) {
          if (isConditionFailure(error)) continue;
          throw error;
        }
        if (at > now) await sleep(at - now);
        return 0;
      }
      throw new Error('The import pace stayed contended: try again');
    },
    holdUntil: async (at) => {
      try {
        await dynamo().send(
          new UpdateCommand({
            TableName: table(),
            Key: key(),
            UpdateExpression: 'SET holdUntil = :at',
            ConditionExpression: 'attribute_not_exists(holdUntil) OR holdUntil < :at',
            ExpressionAttributeValues: { ':at': at },
          }),
        );
      } catch (error) {
        // Another worker holds until later already.
        if (!isConditionFailure(error)) throw error;
      }
    },
  };
};
