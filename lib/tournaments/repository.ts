// Tournaments in the play table: each definition, and per game one index item of the live ones (`#LIVE`) that
// every save of the game reads with a single GetItem (not a query growing with the game's history).
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { dynamo, isConditionFailure } from '../adapters/dynamodb.js';
import { AppError } from '../core/errors.js';
import { playTable, tournamentPlayKeys, transact } from '../play/index.js';
import { DEFAULT_PAYOUT_DELAY_SECONDS, type Tournament } from './model.js';

type Item = Record<string, NativeAttributeValue>;

const LIVE_SK = '#LIVE';
const keyOf = (gameId: string, tournamentId: string) => ({ pk: `TOURNAMENT#${gameId}`, sk: tournamentId });
const liveKey = (gameId: string) => ({ pk: `TOURNAMENT#${gameId}`, sk: LIVE_SK });

/** A game's live tournaments as the index item holds them, with the version writers condition on. */
export interface LiveIndex {
  version: number;
  live: Map<string, Tournament>;
}

const FIELDS = [
  'tournamentId',
  'gameId',
  'title',
  'description',
  'startsAt',
  'endsAt',
  'recurrence',
  'durationSeconds',
  'until',
  'scoring',
  'joinRequired',
  'maxEntrants',
  'maxAttempts',
  'tieRule',
  'metadata',
  'prizes',
  'prizePool',
  'payoutDelaySeconds',
  'retentionDays',
  'status',
  'createdBy',
  'createdAt',
  'updatedAt',
] as const;

const fromItem = (item: Item): Tournament => {
  const t = Object.fromEntries(FIELDS.map((f) => [f, item[f] ?? null])) as unknown as Tournament;
  // Definitions written before prizes were paid have no payout delay.
  t.payoutDelaySeconds ??= DEFAULT_PAYOUT_DELAY_SECONDS;
  return t;
};

const toItem = (t: Tournament): Item => Object.fromEntries(FIELDS.map((f) => [f, t[f]]));

export const readLive = async (gameId: string): Promise<LiveIndex> => {
  const out = await dynamo().send(
    new GetCommand({ TableName: playTable(), Key: liveKey(gameId), ConsistentRead: true }),
  );
  const live = (out.Item?.live ?? {}) as Record<string, Item>;
  return {
    version: Number(out.Item?.version ?? 0),
    live: new Map(Object.entries(live).map(([id, item]) => [id, fromItem(item)])),
  };
};

export const getTournament = async (gameId: string, tournamentId: string) => {
  const out = await dynamo().send(
    new GetCommand({ TableName: playTable(), Key: keyOf(gameId, tournamentId), ConsistentRead: true }),
  );
  return out.Item ? fromItem(out.Item) : undefined;
};

const raced = () => new AppError('CONFLICT', 'The game’s tournaments changed meanwhile; retry');

/**
 * Writes a tournament and the game's live index together: the index replaced as a whole, conditional on the
 * version read (concurrent changes of one game's tournaments serialize: the loser answers 409), the definition
 * conditional on `expect` (absent on creation, else the updatedAt read).
 */
export const writeTournament = async (
  t: Tournament,
  index: LiveIndex,
  live: Map<string, Tournament>,
  expect: { absent: true } | { updatedAt: string },
) => {
  try {
    await transact([
      {
        Put: {
          TableName: playTable(),
          Item: { ...keyOf(t.gameId, t.tournamentId), ...toItem(t) },
          ConditionExpression:
            'absent' in expect ? 'attribute_not_exists(pk)' : 'attribute_exists(pk) AND updatedAt = :was',
          ...('absent' in expect ? {} : { ExpressionAttributeValues: { ':was': expect.updatedAt } }),
        },
      },
      {
        Put: {
          TableName: playTable(),
          Item: {
            ...liveKey(t.gameId),
            version: index.version + 1,
            live: Object.fromEntries([...live].map(([id, l]) => [id, toItem(l)])),
          },
          ConditionExpression: 'attribute_not_exists(pk) OR version = :v',
          ExpressionAttributeValues: { ':v': index.version },
        },
      },
    ]);
  } catch (error) {
    if (isConditionFailure(error)) throw raced();
    throw error;
  }
};

/** One page of a partition, newest (highest sort key) first unless told. */
const queryPage = async (input: {
  pk: string;
  limit: number;
  cursor?: string | undefined;
  after?: string;
  forward?: boolean;
}) => {
  let start: Item | undefined;
  if (input.cursor) {
    try {
      start = JSON.parse(Buffer.from(input.cursor, 'base64url').toString('utf8')) as Item;
    } catch {
      throw new AppError('VALIDATION_ERROR', 'Invalid cursor', [
        { path: 'cursor', message: 'Invalid cursor' },
      ]);
    }
    if (start?.pk !== input.pk || typeof start.sk !== 'string')
      throw new AppError('VALIDATION_ERROR', 'Invalid cursor', [
        { path: 'cursor', message: 'Invalid cursor' },
      ]);
  }
  const out = await dynamo().send(
    new QueryCommand({
      TableName: playTable(),
      KeyConditionExpression: input.after ? 'pk = :pk AND sk > :after' : 'pk = :pk',
      ExpressionAttributeValues: { ':pk': input.pk, ...(input.after ? { ':after': input.after } : {}) },
      ScanIndexForward: input.forward ?? false,
      Limit: input.limit,
      ExclusiveStartKey: start,
    }),
  );
  const last = out.LastEvaluatedKey;
  return {
    items: out.Items ?? [],
    nextCursor: last ? Buffer.from(JSON.stringify({ pk: last.pk, sk: last.sk })).toString('base64url') : null,
  };
};

/** A page of a game's tournaments (every one, cancelled and ended too), by id. */
export const listTournaments = async (gameId: string, limit: number, cursor?: string) => {
  const page = await queryPage({ pk: `TOURNAMENT#${gameId}`, limit, cursor, after: LIVE_SK, forward: true });
  return { items: page.items.map(fromItem), nextCursor: page.nextCursor };
};

/** A page of a tournament's period records, newest first. */
export const listPeriodRecords = (gameId: string, tournamentId: string, limit: number, cursor?: string) =>
  queryPage({ pk: tournamentPlayKeys.periodsOf(gameId, tournamentId), limit, cursor });

/** A page of a player's entries in a game's tournaments, by tournament then period. */
export const listEntries = (gameId: string, arcId: string, limit: number, cursor?: string) =>
  queryPage({ pk: tournamentPlayKeys.entriesOf(gameId, arcId), limit, cursor, forward: true });
