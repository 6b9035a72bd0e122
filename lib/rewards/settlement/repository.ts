// The settlement's records in the SettlementTable (keys and access patterns in ./keys.ts). Every state change
// that guards money is conditional or transactional: an intent is written once, a game has one open settlement,
// a transfer's signature is recorded before it is sent and only over the one the writer saw.
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  BatchWriteCommand,
  GetCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { dynamo, isConditionFailure, type TransactItem, transact } from '../../adapters/dynamodb.js';
import { outboxItem } from '../../outbox/index.js';
import { poolDayWrite } from '../pool-days.js';
import { type PrizeRef, settlementKeys, settlementTable } from './keys.js';
import type { FrozenPlayer, PayoutLine, Settlement } from './model.js';
import type { Statement } from './statement.js';

type Item = Record<string, NativeAttributeValue>;

/** A recipient's transfer record: `pending` (maybe sent: signature recorded), then `confirmed` or `carried`. */
export interface PayoutRecord extends PayoutLine {
  gameId: string;
  day: string;
  /** A tournament period's prize (absent: a daily settlement's line). */
  prize?: PrizeRef;
  status: 'pending' | 'confirmed' | 'carried';
  signature?: string;
  lastValidBlockHeight?: number;
  previousSignatures?: string[];
  /** Runs that ended with this line unpaid (not counting another run holding it); parked at MAX_LINE_FAILURES. */
  failures?: number;
  lastError?: string;
  /** Why a carried line was carried. */
  carryReason?: string;
  usd?: number;
  solUsdPrice?: number;
  completedAt?: string;
  createdAt: string;
}

const get = async (key: { pk: string; sk: string }): Promise<Item | undefined> =>
  (await dynamo().send(new GetCommand({ TableName: settlementTable(), Key: key, ConsistentRead: true })))
    .Item;

/** A settlement's intent (a prize run's with `prize`), if it was persisted. */
export const getSettlement = async (
  gameId: string,
  day: string,
  prize?: PrizeRef,
): Promise<Settlement | undefined> =>
  (await get(settlementKeys.settlement(gameId, day, prize))) as Settlement | undefined;

/**
 * Which of up to 100 (game, day) have a settled intent: one BatchGetItem of their status (eventually consistent:
 * a day settled a moment ago may read unsettled, and queueing it again is harmless), unprocessed keys retried.
 */
export const settledAmong = async (
  pairs: ReadonlyArray<{ gameId: string; day: string }>,
): Promise<Set<string>> => {
  const settled = new Set<string>();
  if (pairs.length === 0) return settled;
  let keys: Item[] | undefined = pairs.map(({ gameId, day }) => settlementKeys.settlement(gameId, day));
  for (let attempt = 0; keys && keys.length > 0; attempt++) {
    if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));
    const out: BatchGetCommandOutput = await dynamo().send(
      new BatchGetCommand({
        RequestItems: {
          [settlementTable()]: {
            Keys: keys,
            ProjectionExpression: 'pk, sk, #status',
            ExpressionAttributeNames: { '#status': 'status' },
          },
        },
      }),
    );
    for (const item of out.Responses?.[settlementTable()] ?? [])
      if (item.status === 'settled') settled.add(`${item.pk}|${item.sk}`);
    keys = out.UnprocessedKeys?.[settlementTable()]?.Keys;
  }
  return new Set(
    pairs
      .filter(({ gameId, day }) => {
        const key = settlementKeys.settlement(gameId, day);
        return settled.has(`${key.pk}|${key.sk}`);
      })
      .map(({ gameId, day }) => `${gameId}|${day}`),
  );
};

/** The run a game's open settlement pays (a day, or a tournament period's prizes), if one is open. */
export const openRun = async (gameId: string): Promise<{ day: string; prize?: PrizeRef } | undefined> => {
  const item = await get(settlementKeys.open(gameId));
  if (!item) return undefined;
  const prize = item.prize as PrizeRef | undefined;
  return { day: String(item.day), ...(prize ? { prize } : {}) };
};

/** The day a game's open daily settlement pays, if one is open (a prize run open: its period's end day). */
export const openDay = async (gameId: string): Promise<string | undefined> => (await openRun(gameId))?.day;

/** A game's carries as a run read them: their version (read before them) and what each recipient is owed. */
export interface CarriesRead {
  /** Absent while no carry of the game was ever written. */
  version: number | undefined;
  carried: Map<string, bigint>;
}

/**
 * What recipients are owed from earlier payouts that could not land (lamports), with the version of the game's
 * carries read first: an intent computed from them commits only while that version stands (persistIntent).
 */
export const carriedOf = async (gameId: string, arcIds: string[]): Promise<CarriesRead> => {
  const version = (await get(settlementKeys.carries(gameId)))?.version;
  const entries = await Promise.all(
    arcIds.map(
      async (arcId) =>
        [arcId, BigInt((await get(settlementKeys.carry(gameId, arcId)))?.lamports ?? 0)] as const,
    ),
  );
  return {
    version: version === undefined ? undefined : Number(version),
    carried: new Map(entries.filter(([, lamports]) => lamports > 0n)),
  };
};

/** Written with every change of one of a game's carries, in its transaction: the carries' version moves on. */
export const carriesChanged = (gameId: string, now: string): TransactItem => ({
  Update: {
    TableName: settlementTable(),
    Key: settlementKeys.carries(gameId),
    UpdateExpression: 'ADD version :one SET updatedAt = :now',
    ExpressionAttributeValues: { ':one': 1, ':now': now },
  },
});

/** The condition of a run's intent: no carry of the game changed since the run read them. */
const carriesAsRead = (gameId: string, version: number | undefined): TransactItem => ({
  ConditionCheck: {
    TableName: settlementTable(),
    Key: settlementKeys.carries(gameId),
    ...(version === undefined
      ? { ConditionExpression: 'attribute_not_exists(version)' }
      : { ConditionExpression: 'version = :v', ExpressionAttributeValues: { ':v': version } }),
  },
});

/** Compact chunk encoding: `arcId,wallet,points` lines (an item holds at most 400 KB). */
export const PLAYERS_PER_CHUNK = 2_000;

/**
 * Write the frozen players of one freeze attempt in chunks (BatchWriteItem). Chunks are trusted only through the
 * intent naming their attempt and count; a concurrent or crashed attempt's chunks are never read.
 */
export const putPlayerChunks = async (
  gameId: string,
  day: string,
  freezeId: string,
  players: FrozenPlayer[],
): Promise<number> => {
  const items: Item[] = [];
  for (let i = 0; i * PLAYERS_PER_CHUNK < players.length; i++) {
    const rows = players
      .slice(i * PLAYERS_PER_CHUNK, (i + 1) * PLAYERS_PER_CHUNK)
      .map((p) => `${p.userId},${p.wallet ?? ''},${p.points}`);
    items.push({ ...settlementKeys.players(gameId, day, freezeId, i), rows: rows.join('\n') });
  }
  for (let i = 0; i < items.length; i += 25) {
    let request: Record<string, Array<{ PutRequest: { Item: Item } }>> | undefined = {
      [settlementTable()]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })),
    };
    for (let attempt = 0; request && Object.keys(request).length > 0; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));
      const out = await dynamo().send(new BatchWriteCommand({ RequestItems: request }));
      request = out.UnprocessedItems as typeof request;
    }
  }
  return items.length;
};

/** The frozen players of a persisted settlement, in board order. */
export const readPlayers = async (
  settlement: Pick<Settlement, 'gameId' | 'day' | 'freezeId' | 'chunks'>,
): Promise<FrozenPlayer[]> => {
  const { gameId, day, freezeId } = settlement;
  const parts = await Promise.all(
    Array.from({ length: settlement.chunks }, (_, i) =>
      get(settlementKeys.players(gameId, day, freezeId, i)),
    ),
  );
  return parts.flatMap((item) => {
    if (!item) throw new Error(`Settlement ${gameId} ${day}: a frozen players chunk is missing`);
    return String(item.rows)
      .split('\n')
      .filter(Boolean)
      .map((row) => {
        const [userId = '', wallet = '', points = '0'] = row.split(',');
        return { userId, wallet: wallet || null, points: Number(points) };
      });
  });
};

/** What a prize run takes from the pool itself (0 for a daily run). */
const prizeTake = (settlement: Settlement) => BigInt(settlement.prize?.poolTakenLamports ?? 0);

/**
 * A prize run taking from the pool books its take on the pool's day only while what prize runs took that day
 * stays within the day's bound: taken before ≤ the day's room (as read at freeze) + taken before − this take.
 */
const prizesAtMost = (settlement: Settlement) => {
  const take = prizeTake(settlement);
  const { dayRoomLamports, dayTakenBeforeLamports } = settlement.prize ?? {};
  if (take === 0n || dayRoomLamports === undefined || dayTakenBeforeLamports === undefined) return undefined;
  return BigInt(dayTakenBeforeLamports) + BigInt(dayRoomLamports) - take;
};

/**
 * Persist the intent, open it as the game's one open settlement, and commit the pool's allocation (the rewards
 * domain's item) and any event in one transaction, over the game's carries as the run read them (a carry paid,
 * carried or moved meanwhile would be consumed twice). False when another run persisted it first, another is
 * open, or the carries changed: the caller reads again.
 */
/**
 * The run's statement, put with its intent (one per run: a second intent can't commit, and neither can its
 * statement). The intent carries the root.
 */
export const statementWrite = (settlement: Settlement, statement: Statement, root: string): TransactItem => ({
  Put: {
    TableName: settlementTable(),
    Item: {
      ...settlementKeys.statement(settlement.gameId, settlement.day, settlement.prize),
      statement,
      root,
      createdAt: settlement.frozenAt,
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/** A run's statement and its root, if the run has one (runs before statements have none). */
export const getStatement = async (
  gameId: string,
  day: string,
  prize?: PrizeRef,
): Promise<{ statement: Statement; root: string } | undefined> => {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: settlementTable(), Key: settlementKeys.statement(gameId, day, prize) }),
  );
  return Item ? { statement: Item.statement as Statement, root: String(Item.root) } : undefined;
};

export const persistIntent = async (
  settlement: Settlement,
  carries: Pick<CarriesRead, 'version'>,
  extra: TransactItem[],
): Promise<boolean> => {
  const TableName = settlementTable();
  try {
    await transact([
      carriesAsRead(settlement.gameId, carries.version),
      {
        Put: {
          TableName,
          Item: {
            ...settlementKeys.settlement(settlement.gameId, settlement.day, settlement.prize),
            ...settlement,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      {
        Put: {
          TableName,
          Item: {
            ...settlementKeys.open(settlement.gameId),
            day: settlement.day,
            ...(settlement.prize
              ? {
                  prize: { tournamentId: settlement.prize.tournamentId, periodId: settlement.prize.periodId },
                }
              : {}),
            openedAt: settlement.frozenAt,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      ...extra,
      // The caller's allocation write on the pool item (in `extra` whenever the run allocates anything: there is
      // nothing to allocate without a pool) is booked on the day's books here, for daily and prize runs alike.
      ...(BigInt(settlement.allocated) > 0n || BigInt(settlement.prize?.fundLamports ?? 0) > 0n
        ? [
            poolDayWrite(
              settlement.gameId,
              settlement.frozenAt,
              {
                allocatedLamports: BigInt(settlement.allocated),
                // A prize run ends its period fund's earmark (prizes.ts: the pool's allocation write).
                ...(BigInt(settlement.prize?.fundLamports ?? 0) > 0n
                  ? { earmarkedLamports: -BigInt(settlement.prize?.fundLamports ?? 0) }
                  : {}),
                ...(prizeTake(settlement) > 0n ? { prizePoolLamports: prizeTake(settlement) } : {}),
              },
              prizesAtMost(settlement),
            ),
          ]
        : []),
    ]);
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/** Record that the emission port received this day's players (it is idempotent; this saves calling it again). */
export const markEmissionNotified = async (gameId: string, day: string, now: string): Promise<void> => {
  await dynamo().send(
    new UpdateCommand({
      TableName: settlementTable(),
      Key: settlementKeys.settlement(gameId, day),
      UpdateExpression: 'SET emissionNotified = :t, emissionNotifiedAt = :now',
      ExpressionAttributeValues: { ':t': true, ':now': now },
    }),
  );
};

/**
 * Close a settlement whose every line is confirmed or carried, and free the game for its next day; its
 * `settlement.completed` webhook event commits with it.
 */
export const closeSettlement = async (
  settlement: Settlement,
  committed: { status: 'confirmed'; signature: string } | { status: 'skipped' | 'none' },
  now: string,
): Promise<void> => {
  const { gameId, day, prize } = settlement;
  // The statement's root and its commitment, on runs that have a statement.
  const statement = settlement.statement
    ? {
        statement: {
          root: settlement.statement.root,
          commitment: committed.status === 'confirmed' ? committed.signature : null,
        },
      }
    : {};
  const TableName = settlementTable();
  const recipients = settlement.lines.map((line) => ({
    arcId: line.arcId,
    role: line.roles.join('+'),
    lamports: line.due,
  }));
  try {
    await transact([
      {
        Update: {
          TableName,
          Key: settlementKeys.settlement(gameId, day, prize),
          UpdateExpression: 'SET #status = :settled, settledAt = :now',
          ConditionExpression: '#status = :paying',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':settled': 'settled', ':paying': 'paying', ':now': now },
        },
      },
      {
        Delete: {
          TableName,
          Key: settlementKeys.open(gameId),
          // This run's marker only (a prize run's day is its period's end day, which a daily run may share).
          ...(prize
            ? {
                ConditionExpression: 'prize.tournamentId = :t AND prize.periodId = :p',
                ExpressionAttributeValues: { ':t': prize.tournamentId, ':p': prize.periodId },
              }
            : {
                ConditionExpression: '#day = :day AND attribute_not_exists(prize)',
                ExpressionAttributeNames: { '#day': 'day' },
                ExpressionAttributeValues: { ':day': day },
              }),
        },
      },
      prize
        ? outboxItem('tournament.period.paid', gameId, {
            tournamentId: prize.tournamentId,
            periodId: prize.periodId,
            totalLamports: settlement.allocated,
            recipients: settlement.lines.map((line) => ({
              arcId: line.arcId,
              rank: line.rank ?? 0,
              lamports: line.due,
            })),
            ...statement,
          })
        : outboxItem('settlement.completed', gameId, {
            day,
            totalLamports: settlement.allocated,
            recipients,
            ...statement,
          }),
    ]);
  } catch (error) {
    // Closed by a concurrent run meanwhile.
    if (!isConditionFailure(error)) throw error;
  }
};

/** A game's settlements, newest day first (one Query). */
export const recentSettlementItems = async (gameId: string, limit: number): Promise<Settlement[]> => {
  const { Items = [] } = await dynamo().send(
    new QueryCommand({
      TableName: settlementTable(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: {
        ':pk': settlementKeys.gamePartition(gameId),
        ':prefix': settlementKeys.DAY_PREFIX,
      },
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  return Items as Settlement[];
};

/** Every payout record of a settlement (one Query; a day pays at most the top ranks and the creators). */
export const payoutRecords = async (
  gameId: string,
  day: string,
  prize?: PrizeRef,
): Promise<PayoutRecord[]> => {
  const records: PayoutRecord[] = [];
  let ExclusiveStartKey: Item | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({
        TableName: settlementTable(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: {
          ':pk': settlementKeys.dayPartition(gameId, day, prize),
          ':prefix': settlementKeys.PAY_PREFIX,
        },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    records.push(...((page.Items ?? []) as PayoutRecord[]));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return records;
};

/** A user's first `wanted` payouts across games, newest first, and how many there are (GSI byRecipient). */
export const payoutsOfRecipient = async (
  arcId: string,
  wanted: number,
  gameId?: string,
): Promise<{ records: PayoutRecord[]; total: number }> => {
  // One game's payouts only (a game-scoped token's view): filtered after the index read, so pages read on.
  const base = {
    TableName: settlementTable(),
    IndexName: 'byRecipient',
    KeyConditionExpression: 'recipient = :r',
    ...(gameId
      ? { FilterExpression: 'gameId = :g', ExpressionAttributeValues: { ':r': arcId, ':g': gameId } }
      : { ExpressionAttributeValues: { ':r': arcId } }),
  };
  const records: PayoutRecord[] = [];
  let total = 0;
  let start: Item | undefined;
  do {
    const page = await dynamo().send(
      new QueryCommand({ ...base, Select: 'COUNT', ...(start ? { ExclusiveStartKey: start } : {}) }),
    );
    total += page.Count ?? 0;
    start = page.LastEvaluatedKey;
  } while (start);
  for (let more = wanted > 0; more; ) {
    const page: { Items?: Item[]; LastEvaluatedKey?: Item } = await dynamo().send(
      new QueryCommand({
        ...base,
        ScanIndexForward: false,
        Limit: wanted - records.length,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    records.push(...((page.Items ?? []) as PayoutRecord[]));
    start = page.LastEvaluatedKey;
    more = start !== undefined && records.length < wanted;
  }
  return { records, total };
};
