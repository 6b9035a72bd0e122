// Reads of many games: the sorted listings (visible games, a member's games) and the snapshot schedule's scan.
import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo } from '../adapters/dynamodb.js';
import { EMITTING_INDEX, SORT_INDEX, VISIBLE } from './keys.js';
import type { GameRecord } from './model.js';
import { countVisible, type Item, type PageRequest, table, toRecord } from './repository.js';

/** Read an index in order until `offset + limit` matches are seen (or it ends); optional contains-filter. */
const readIndex = async (
  params: { IndexName: string; KeyConditionExpression: string; ExpressionAttributeValues: Item },
  page: PageRequest,
  filter?: string,
): Promise<{ items: Item[]; exhausted: boolean }> => {
  const wanted = page.offset + page.limit;
  const items: Item[] = [];
  let ExclusiveStartKey: Item | undefined;
  do {
    const res = await dynamo().send(
      new QueryCommand({
        TableName: table(),
        ...params,
        ScanIndexForward: page.sort === 'asc',
        ...(filter
          ? {
              FilterExpression: 'contains(searchText, :q)',
              ExpressionAttributeValues: { ...params.ExpressionAttributeValues, ':q': filter },
            }
          : { Limit: Math.min(wanted - items.length, 1000) }),
        ...(ExclusiveStartKey ? { ExclusiveStartKey } : {}),
      }),
    );
    items.push(...(res.Items ?? []));
    ExclusiveStartKey = res.LastEvaluatedKey;
  } while (ExclusiveStartKey && (filter !== undefined || items.length < wanted));
  return { items, exhausted: !ExclusiveStartKey };
};

/**
 * Visible games, sorted from the index of the sort field. Without a text filter this reads offset + limit
 * items and the total comes from the counter; with one, the whole index is filtered (to count matches).
 */
export const listVisible = async (
  page: PageRequest & { sortBy: keyof typeof SORT_INDEX; query?: string | undefined },
): Promise<{ games: GameRecord[]; total: number }> => {
  const { index } = SORT_INDEX[page.sortBy];
  const filter = page.query?.toLowerCase();
  const [{ items }, counted] = await Promise.all([
    readIndex(
      {
        IndexName: index,
        KeyConditionExpression: 'listPk = :v',
        ExpressionAttributeValues: { ':v': VISIBLE },
      },
      page,
      filter,
    ),
    filter ? Promise.resolve(undefined) : countVisible(),
  ]);
  return {
    games: items.slice(page.offset, page.offset + page.limit).map(toRecord),
    total: counted ?? items.length,
  };
};

/** Games a user created or owns, newest first by default, hidden ones included. */
export const listByMember = async (
  arcId: string,
  page: PageRequest,
): Promise<{ games: GameRecord[]; total: number }> => {
  const all: PageRequest = { limit: Number.MAX_SAFE_INTEGER, offset: 0, sort: page.sort };
  const [created, owned] = await Promise.all([
    readIndex(
      {
        IndexName: 'byCreator',
        KeyConditionExpression: 'creatorId = :u',
        ExpressionAttributeValues: { ':u': arcId },
      },
      all,
    ),
    readIndex(
      {
        IndexName: 'byOwner',
        KeyConditionExpression: 'ownerKey = :u',
        ExpressionAttributeValues: { ':u': arcId },
      },
      all,
    ),
  ]);
  const merged = [...created.items, ...owned.items].sort((a, b) =>
    page.sort === 'asc'
      ? String(a.sortCreated).localeCompare(String(b.sortCreated))
      : String(b.sortCreated).localeCompare(String(a.sortCreated)),
  );
  return { games: merged.slice(page.offset, page.offset + page.limit).map(toRecord), total: merged.length };
};

/**
 * Coins (mints) of every game that has an airdrop token configured: the snapshot scheduler's work list (a filtered
 * Scan, once per schedule tick).
 */
export const listAirdropCoins = async (): Promise<Array<{ coinMint: string; gameId: string }>> => {
  const coins: Array<{ coinMint: string; gameId: string }> = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new ScanCommand({
        TableName: table(),
        FilterExpression:
          'sk = :game AND attribute_exists(coin.coinMint) AND attribute_type(airdropTokenAddress, :s)',
        ProjectionExpression: 'id, coin.coinMint',
        ExpressionAttributeValues: { ':game': 'GAME', ':s': 'S' },
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const coinMint = (item.coin as { coinMint?: unknown } | undefined)?.coinMint;
      if (typeof coinMint === 'string') coins.push({ coinMint, gameId: String(item.id) });
    }
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return coins;
};

/** Every game's id: the daily settlement's work list (a projected Scan, once per schedule tick). */
export const listGameIds = async (): Promise<string[]> => {
  const ids: string[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new ScanCommand({
        TableName: table(),
        FilterExpression: 'sk = :game',
        ProjectionExpression: 'id',
        ExpressionAttributeValues: { ':game': 'GAME' },
        ExclusiveStartKey,
      }),
    );
    for (const item of page.Items ?? []) ids.push(String(item.id));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return ids;
};

/** The ids of the games whose coin is still emitting (the sparse index of them; a few, never a scan). */
export const emittingGameIds = async (): Promise<string[]> => {
  const ids: string[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: table(),
        IndexName: EMITTING_INDEX.index,
        KeyConditionExpression: '#e = :e',
        ExpressionAttributeNames: { '#e': EMITTING_INDEX.attribute },
        ExpressionAttributeValues: { ':e': EMITTING_INDEX.value },
        ExclusiveStartKey,
      }),
    );
    // KEYS_ONLY: the game's key, GAME#<id>.
    for (const item of page.Items ?? []) ids.push(String(item.pk).slice('GAME#'.length));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return ids;
};
