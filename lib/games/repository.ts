import { BatchGetCommand, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { dynamo } from '../adapters/dynamodb.js';
import { settings } from '../core/config.js';
import { statIncrementWrite } from '../user/index.js';
import { gameKeys, indexAttributes } from './keys.js';
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

/**
 * Write a game after a change, atomically with everything derived from it: the visible-game counter, the
 * airdrop-token link and, on creation, the creator's counter. Optimistic concurrency on `version`: a
 * concurrent change makes this fail with TransactionCanceledException instead of overwriting it.
 */
export const saveGame = async (next: GameRecord, previous?: GameRecord): Promise<void> => {
  const TableName = table();
  const items: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']> = [
    {
      Put: {
        TableName,
        Item: gameItem(next),
        ...(previous
          ? { ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': previous.version } }
          : { ConditionExpression: 'attribute_not_exists(pk)' }),
      },
    },
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
  await dynamo().send(new TransactWriteCommand({ TransactItems: items }));
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
 * Writes that record a launched coin on its game, for the launcher's completion transaction: the game's coin
 * summary (optimistic on `version`, like saveGame) and the coin → game link (created once).
 */
export const recordCoinWrites = (
  game: GameRecord,
  coin: CoinSummary,
  now: string,
): NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']> => [
  {
    Update: {
      TableName: table(),
      Key: gameKeys.game(game.id),
      UpdateExpression: 'SET coin = :coin, version = :next, updatedAt = :now',
      ConditionExpression: 'version = :v',
      ExpressionAttributeValues: {
        ':coin': coin,
        ':next': game.version + 1,
        ':now': now,
        ':v': game.version,
      },
    },
  },
  {
    Put: {
      TableName: table(),
      Item: { ...gameKeys.coinLink(coin.coinMint), gameId: game.id },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  },
];

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
      'SET coin.#status = :ended, coin.emissionEndAt = :at, version = version + :one, updatedAt = :at',
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
