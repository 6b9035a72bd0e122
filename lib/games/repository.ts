import {
  BatchGetCommand,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { dynamo, type TransactItem } from '../adapters/dynamodb.js';
import { settings } from '../core/config.js';
import { statIncrementWrite } from '../user/index.js';
import { EMITTING_INDEX, gameKeys, indexAttributes } from './keys.js';
import { type CoinSummary, type GameRecord, gameRecordSchema } from './model.js';

/** The games table's name. */
export const table = () => settings().GAMES_TABLE;

export type Item = Record<string, NativeAttributeValue>;

export const toRecord = (item: Item): GameRecord => gameRecordSchema.parse(item);

/** One game (one GetItem). */
export const getGame = async (id: string): Promise<GameRecord | undefined> => {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: table(), Key: gameKeys.game(id), ConsistentRead: true }),
  );
  return Item ? toRecord(Item) : undefined;
};

const batchGet = async (keys: Item[]): Promise<Item[]> => {
  const out: Item[] = [];
  for (let i = 0; i < keys.length; i += 100) {
    let request: Record<string, { Keys: Item[] }> | undefined = {
      [table()]: { Keys: keys.slice(i, i + 100) },
    };
    for (let attempt = 0; request && Object.keys(request).length > 0; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));
      const res = await dynamo().send(new BatchGetCommand({ RequestItems: request }));
      out.push(...(res.Responses?.[table()] ?? []));
      request = res.UnprocessedKeys as typeof request;
    }
  }
  return out;
};

/** Games by id, in request order, in one BatchGetItem per 100 ids. */
export const getGames = async (ids: string[]): Promise<GameRecord[]> => {
  const items = await batchGet([...new Set(ids)].map(gameKeys.game));
  const byId = new Map(items.map((item) => [String(item.id), toRecord(item)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
};

/** Game ids of game coins, in one BatchGetItem per 100 coin mints. */
export const getCoinGameIds = async (coinMints: string[]): Promise<Map<string, string>> => {
  const items = await batchGet([...new Set(coinMints)].map(gameKeys.coinLink));
  return new Map(items.map((item) => [String(item.pk).slice('TOKEN#'.length), String(item.gameId)]));
};

/** Ids of every game linked to a token, as coin or airdrop token (one Query). */
export const getTokenGameIds = async (tokenAddress: string): Promise<string[]> => {
  const { Items = [] } = await dynamo().send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': gameKeys.tokenPartition(tokenAddress) },
    }),
  );
  return Items.map((item) => String(item.gameId));
};

/** Ids of the games whose airdrop token is `airdropMint` (one Query on the token's AIRDROP# links). */
export const getAirdropGameIds = async (airdropMint: string): Promise<string[]> => {
  const { Items = [] } = await dynamo().send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :airdrop)',
      ExpressionAttributeValues: { ':pk': gameKeys.tokenPartition(airdropMint), ':airdrop': 'AIRDROP#' },
    }),
  );
  return Items.map((item) => String(item.gameId));
};

/** The number of visible games (one GetItem on a counter kept in the same transactions as the games). */
export const countVisible = async (): Promise<number> => {
  const { Item } = await dynamo().send(new GetCommand({ TableName: table(), Key: gameKeys.visibleCount() }));
  return Number(Item?.count ?? 0);
};

const gameItem = (game: GameRecord): Item => ({
  ...game,
  ...gameKeys.game(game.id),
  ...indexAttributes(game),
});

/** The listing figures and what derives from them: written by saveGameFigures only, never by saveGame's updates. */
const FIGURE_ATTRIBUTES = new Set([
  'totalRewardsAllocatedUsd',
  'estimatedDailyRewardsUsd',
  'totalRewardsPoolValueUsd',
  'figuresVersion',
  'sortPool',
  'sortAllocated',
  'sortDaily',
]);
/** Sparse index attributes: absent from the item when they do not apply (indexAttributes). */
const SPARSE_ATTRIBUTES = ['listPk', 'ownerKey', EMITTING_INDEX.attribute];

type TransactItems = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>;

/**
 * The write of a game's change over `previous`: every attribute but the figures (a concurrent figures sync keeps
 * its values, and does not make this write conflict), conditional on the version read.
 */
const updateGameItem = (next: GameRecord, previous: GameRecord): TransactItems[number] => {
  const item = gameItem(next);
  const names: Record<string, string> = {};
  const values: Record<string, NativeAttributeValue> = { ':v': previous.version };
  const sets: string[] = [];
  Object.entries(item)
    .filter(
      ([key, value]) => key !== 'pk' && key !== 'sk' && !FIGURE_ATTRIBUTES.has(key) && value !== undefined,
    )
    .forEach(([key, value], i) => {
      names[`#a${i}`] = key;
      values[`:a${i}`] = value;
      sets.push(`#a${i} = :a${i}`);
    });
  const removes = SPARSE_ATTRIBUTES.filter((key) => !(key in item));
  removes.forEach((key, i) => {
    names[`#r${i}`] = key;
  });
  return {
    Update: {
      TableName: table(),
      Key: gameKeys.game(next.id),
      UpdateExpression:
        `SET ${sets.join(', ')}` +
        (removes.length ? ` REMOVE ${removes.map((_, i) => `#r${i}`).join(', ')}` : ''),
      ConditionExpression: 'version = :v',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
};

/**
 * Write a game after a change, atomically with everything derived from it: the visible-game counter, the
 * airdrop-token link and, on creation, the creator's counter. Optimistic concurrency on `version`: a
 * concurrent change makes this fail with TransactionCanceledException instead of overwriting it. A change leaves
 * the listing figures as they are stored (saveGameFigures writes them).
 */
export const saveGame = async (
  next: GameRecord,
  previous?: GameRecord,
  /** Writes that commit with the change or not at all (its webhook event). */
  extra: TransactItems = [],
): Promise<void> => {
  const TableName = table();
  const items: TransactItems = [
    previous
      ? updateGameItem(next, previous)
      : { Put: { TableName, Item: gameItem(next), ConditionExpression: 'attribute_not_exists(pk)' } },
  ];
  const visibleDelta = (next.hidden ? 0 : 1) - (previous ? (previous.hidden ? 0 : 1) : 0);
  if (visibleDelta !== 0) {
    items.push({
      Update: {
        TableName,
        Key: gameKeys.visibleCount(),
        UpdateExpression: 'ADD #c :d',
        ExpressionAttributeNames: { '#c': 'count' },
        ExpressionAttributeValues: { ':d': visibleDelta },
      },
    });
  }
  const oldAirdrop = previous?.airdropTokenAddress ?? null;
  if (oldAirdrop !== next.airdropTokenAddress) {
    if (oldAirdrop) items.push({ Delete: { TableName, Key: gameKeys.airdropLink(oldAirdrop, next.id) } });
    if (next.airdropTokenAddress) {
      items.push({
        Put: {
          TableName,
          Item: { ...gameKeys.airdropLink(next.airdropTokenAddress, next.id), gameId: next.id },
        },
      });
    }
  }
  if (!previous) {
    items.push(statIncrementWrite(next.creatorId, 'gamesRegistered'));
  }
  items.push(...extra);
  await dynamo().send(new TransactWriteCommand({ TransactItems: items }));
};

/** A game's listing figures (synced from its rewards pool: lib/rewards/figures.ts). */
export interface GameFigures {
  totalRewardsPoolValueUsd: number;
  estimatedDailyRewardsUsd: number;
  totalRewardsAllocatedUsd: number;
}

/**
 * Write a game's listing figures and their sort keys, conditional on the figures revision read with `game` (of two
 * concurrent syncs the one that read older figures retries). `version` is left alone: the figures follow
 * purchases anybody can make, and must not make launches or edits decided on the game conflict.
 */
export const saveGameFigures = async (game: GameRecord, figures: GameFigures): Promise<void> => {
  const index = indexAttributes({ ...game, ...figures });
  const revision = game.figuresVersion ?? 0;
  await dynamo().send(
    new UpdateCommand({
      TableName: table(),
      Key: gameKeys.game(game.id),
      UpdateExpression:
        'SET totalRewardsPoolValueUsd = :pool, estimatedDailyRewardsUsd = :daily, ' +
        'totalRewardsAllocatedUsd = :allocated, sortPool = :sortPool, sortDaily = :sortDaily, ' +
        'sortAllocated = :sortAllocated, figuresVersion = :next',
      ConditionExpression:
        revision === 0
          ? 'attribute_exists(pk) AND attribute_not_exists(figuresVersion)'
          : 'figuresVersion = :revision',
      ExpressionAttributeValues: {
        ':pool': figures.totalRewardsPoolValueUsd,
        ':daily': figures.estimatedDailyRewardsUsd,
        ':allocated': figures.totalRewardsAllocatedUsd,
        ':sortPool': index.sortPool,
        ':sortDaily': index.sortDaily,
        ':sortAllocated': index.sortAllocated,
        ':next': revision + 1,
        ...(revision === 0 ? {} : { ':revision': revision }),
      },
    }),
  );
};

/** Link a launched game coin to its game (the launcher calls this when a coin is recorded). */
export const linkCoin = async (coinMint: string, gameId: string): Promise<void> => {
  await dynamo().send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: table(),
            Item: { ...gameKeys.coinLink(coinMint), gameId },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      ],
    }),
  );
};

/**
 * Writes that record a launched coin on its game, for the launcher's completion transaction, by name: `game`, the
 * game's coin summary (optimistic on `version`, like saveGame), and `link`, the coin → game link (created once).
 */
export const recordCoinWrites = (
  game: GameRecord,
  coin: CoinSummary,
  now: string,
): { game: TransactItem; link: TransactItem } => ({
  game: {
    Update: {
      TableName: table(),
      Key: gameKeys.game(game.id),
      // An active coin enters the sparse index of emitting coins (indexAttributes; the settlement schedule's).
      UpdateExpression:
        coin.status === 'active'
          ? `SET coin = :coin, ${EMITTING_INDEX.attribute} = :emitting, version = :next, updatedAt = :now`
          : `SET coin = :coin, version = :next, updatedAt = :now REMOVE ${EMITTING_INDEX.attribute}`,
      ConditionExpression: 'version = :v',
      ExpressionAttributeValues: {
        ':coin': coin,
        ...(coin.status === 'active' ? { ':emitting': EMITTING_INDEX.value } : {}),
        ':next': game.version + 1,
        ':now': now,
        ':v': game.version,
      },
    },
  },
  link: {
    Put: {
      TableName: table(),
      Item: { ...gameKeys.coinLink(coin.coinMint), gameId: game.id },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  },
});

/**
 * The write that ends a game's coin (the launcher's lifecycle, when its last emission day settles): status
 * `ended`, `emissionEndAt` = when it ended, version bumped so that a save decided on the older record retries.
 * Conditional on the game's coin still being this active coin, so a second call changes nothing.
 */
export const endCoinWrite = (gameId: string, coinMint: string, endedAt: string) => ({
  Update: {
    TableName: table(),
    Key: gameKeys.game(gameId),
    UpdateExpression:
      'SET coin.#status = :ended, coin.emissionEndAt = :at, version = version + :one, updatedAt = :at ' +
      `REMOVE ${EMITTING_INDEX.attribute}`,
    ConditionExpression: 'coin.coinMint = :mint AND coin.#status = :active',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':ended': 'ended',
      ':active': 'active',
      ':at': endedAt,
      ':one': 1,
      ':mint': coinMint,
    },
  },
});

/** A transaction condition that the game is still at the version read (for writes decided from it). */
export const gameUnchangedCheck = (game: Pick<GameRecord, 'id' | 'version'>) => ({
  ConditionCheck: {
    TableName: table(),
    Key: gameKeys.game(game.id),
    ConditionExpression: 'version = :v',
    ExpressionAttributeValues: { ':v': game.version },
  },
});

export interface PageRequest {
  limit: number;
  offset: number;
  sort: 'asc' | 'desc';
}
