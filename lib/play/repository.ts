import { BatchGetCommand, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { dynamo } from '../adapters/dynamodb.js';
import { settings } from '../core/config.js';
import { playKeys } from './keys.js';

type Item = Record<string, NativeAttributeValue>;

export { type TransactItem, transact } from '../adapters/dynamodb.js';

/** The play table's name. */
export const playTable = () => settings().PLAY_TABLE;

/** An item key; `table` names another domain's table the item lives in (default: the play table). */
export interface ItemRef {
  pk: string;
  sk: string;
  table?: string;
}

type BatchRequest = Record<string, { Keys: Item[]; ConsistentRead: boolean }>;

/** 100 keys (BatchGetItem's limit) as one request, grouped by table. */
const batchRequest = (refs: ItemRef[], consistent: boolean): BatchRequest => {
  const request: BatchRequest = {};
  for (const { pk, sk, table = playTable() } of refs) {
    request[table] ??= { Keys: [], ConsistentRead: consistent };
    request[table].Keys.push({ pk, sk });
  }
  return request;
};

/**
 * Items by key, strongly consistent (unless told), in one BatchGetItem per 100 keys (unprocessed keys retried).
 * Keys of other tables ride in the same call; results are keyed by `itemKey` (keys are unique across the
 * tables' prefixes).
 */
export const getItems = async (keys: ItemRef[], consistent = true): Promise<Map<string, Item>> => {
  const unique = [...new Map(keys.map((k) => [`${k.pk}|${k.sk}`, k])).values()];
  const found = new Map<string, Item>();
  await Promise.all(
    Array.from({ length: Math.ceil(unique.length / 100) }, async (_, chunk) => {
      let request: BatchRequest | undefined = batchRequest(
        unique.slice(chunk * 100, chunk * 100 + 100),
        consistent,
      );
      for (let attempt = 0; request && Object.keys(request).length > 0; attempt++) {
        if (attempt > 0) await new Promise((r) => setTimeout(r, Math.min(1000, 25 * 2 ** attempt)));
        const out = await dynamo().send(new BatchGetCommand({ RequestItems: request }));
        for (const items of Object.values(out.Responses ?? {}))
          for (const item of items) found.set(`${item.pk}|${item.sk}`, item);
        request = out.UnprocessedKeys as typeof request;
      }
    }),
  );
  return found;
};

/** The item key used by `getItems` results. */
export const itemKey = (key: { pk: string; sk: string }) => `${key.pk}|${key.sk}`;

/** One item, strongly consistent. */
export const getItem = async (key: { pk: string; sk: string }): Promise<Item | undefined> =>
  (await dynamo().send(new GetCommand({ TableName: playTable(), Key: key, ConsistentRead: true }))).Item;

/**
 * Index attributes (keys.ts `playIndexes`) as the clauses of an update: SET with their values (named
 * `:ix<attribute>`, apart from the caller's placeholders), REMOVE for the undefined ones.
 */
export const indexUpdate = (attributes: Record<string, NativeAttributeValue>) => {
  const set: string[] = [];
  const remove: string[] = [];
  const values: Item = {};
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined) {
      remove.push(name);
    } else {
      set.push(`${name} = :ix${name}`);
      values[`:ix${name}`] = value;
    }
  }
  return { set, remove, values };
};

/** An UpdateExpression from its clauses, the empty ones left out. */
export const updateExpression = (clauses: { add?: string[]; set?: string[]; remove?: string[] }) =>
  (
    [
      ['ADD', clauses.add],
      ['SET', clauses.set],
      ['REMOVE', clauses.remove],
    ] as const
  )
    .flatMap(([verb, list]) => (list?.length ? [`${verb} ${list.join(', ')}`] : []))
    .join(' ');

export { cancellationReasons } from '../adapters/dynamodb.js';

export interface QueryPage {
  items: Item[];
  next?: Item | undefined;
}

/** One page of an index query. */
export const queryIndex = async (input: {
  index: string;
  key: string;
  value: string | number;
  range?: { op: '>' | '<' | '=' | '>='; value: number };
  forward: boolean;
  limit?: number;
  start?: Item | undefined;
  filter?: { expression: string; values: Item; names?: Record<string, string> };
  count?: boolean;
}): Promise<QueryPage & { count: number }> => {
  const values: Item = {
    ':k': input.value,
    ...(input.range ? { ':r': input.range.value } : {}),
    ...(input.filter?.values ?? {}),
  };
  const out = await dynamo().send(
    new QueryCommand({
      TableName: playTable(),
      IndexName: input.index,
      KeyConditionExpression: `#k = :k${input.range ? ` AND #p ${input.range.op} :r` : ''}`,
      ExpressionAttributeNames: {
        '#k': input.key,
        ...(input.range ? { '#p': 'points' } : {}),
        ...(input.filter?.names ?? {}),
      },
      ExpressionAttributeValues: values,
      ScanIndexForward: input.forward,
      ...(input.limit ? { Limit: input.limit } : {}),
      ...(input.start ? { ExclusiveStartKey: input.start } : {}),
      ...(input.filter ? { FilterExpression: input.filter.expression } : {}),
      ...(input.count ? { Select: 'COUNT' as const } : {}),
    }),
  );
  return { items: out.Items ?? [], next: out.LastEvaluatedKey, count: out.Count ?? 0 };
};

/** Count every item of an index range (pages through it). */
export const countRange = async (
  index: string,
  key: string,
  value: string,
  range: { op: '>' | '='; value: number },
) => {
  let total = 0;
  let start: Item | undefined;
  do {
    const page = await queryIndex({ index, key, value, range, forward: true, start, count: true });
    total += page.count;
    start = page.next;
  } while (start);
  return total;
};

/**
 * One page of a board index partition in rank-key order: `after`/`before` exclusive bounds, `from` inclusive,
 * `to` inclusive (BETWEEN with `from`). With `count`, only the number of entries in the range.
 */
export const queryRankRange = async (input: {
  index: string;
  key: string;
  value: string;
  range: { after: string } | { before: string } | { from: string; to?: string };
  forward: boolean;
  limit?: number;
  count?: boolean;
  start?: Item | undefined;
}): Promise<QueryPage & { count: number }> => {
  const { range } = input;
  const [condition, values]: [string, Item] =
    'after' in range
      ? ['#r > :a', { ':a': range.after }]
      : 'before' in range
        ? ['#r < :b', { ':b': range.before }]
        : range.to === undefined
          ? ['#r >= :f', { ':f': range.from }]
          : ['#r BETWEEN :f AND :t', { ':f': range.from, ':t': range.to }];
  const out = await dynamo().send(
    new QueryCommand({
      TableName: playTable(),
      IndexName: input.index,
      KeyConditionExpression: `#k = :k AND ${condition}`,
      ExpressionAttributeNames: { '#k': input.key, '#r': 'rankKey' },
      ExpressionAttributeValues: { ':k': input.value, ...values },
      ScanIndexForward: input.forward,
      ...(input.limit ? { Limit: input.limit } : {}),
      ...(input.start ? { ExclusiveStartKey: input.start } : {}),
      ...(input.count ? { Select: 'COUNT' as const } : {}),
    }),
  );
  return { items: out.Items ?? [], next: out.LastEvaluatedKey, count: out.Count ?? 0 };
};

export { playKeys };
