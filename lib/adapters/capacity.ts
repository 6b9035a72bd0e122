// Consumed capacity of every DynamoDB call: a client middleware asks each request for
// `ReturnConsumedCapacity: INDEXES` and adds what DynamoDB reports, per table and index, to one counter that a
// bench or a test reads and resets. Off unless DYNAMODB_CAPACITY=count (lib/core/config.ts): a deployment has
// no reader for it.
//
// Where the report is missing or wrong, the units are computed here from item sizes with AWS's published rules
// and counted apart as `computed`:
// - A write refused by its condition is billed on AWS, but no request that fails reports capacity.
// - DynamoDB Local reports every other call as AWS would (tables and indexes; checked against the rules), except
//   TransactWriteItems: it reports one item's units per table and index, whatever the number of items. Against a
//   local endpoint, a transaction's items are read before and after it (consistent BatchGetItem, not counted) and
//   each is priced: 2 units per KB of the larger of its two versions, and for each global secondary index the
//   entries it removes, adds or rewrites, 1 unit per KB of the projected item each. A transaction doubles the
//   table's units only: its index entries cost what they cost outside one (measured against AWS by the dynoxide
//   emulator's authors: github.com/nubo-db/dynoxide/issues/176 and /pull/188).
// - Any successful data call that comes back without a report.
import { DescribeTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** Read and write units of one table or one index (`table/index`). */
export interface Units {
  read: number;
  write: number;
}

export interface CapacityCount {
  /** Requests sent (a retry of the SDK's is not another one: it is below this middleware). */
  requests: number;
  /** Requests per operation (`PutItem`, `TransactWriteItems`, …). */
  operations: Record<string, number>;
  /** Units per table and per index, as `table` and `table/index`. */
  units: Record<string, Units>;
  /** Of the above, units computed here from item sizes, and the requests they came from. */
  computed: { requests: number; read: number; write: number };
}

const empty = (): CapacityCount => ({
  requests: 0,
  operations: {},
  units: {},
  computed: { requests: 0, read: 0, write: 0 },
});

let count = empty();

/** What has been counted since the last reset (a copy). */
export const readCapacity = (): CapacityCount => structuredClone(count);

/** Starts counting from zero. */
export const resetCapacity = (): void => {
  count = empty();
};

/** Total read and write units of a count, tables and indexes together. */
export const totalUnits = (c: CapacityCount): Units =>
  Object.values(c.units).reduce((s, u) => ({ read: s.read + u.read, write: s.write + u.write }), {
    read: 0,
    write: 0,
  });

const WRITES = /^(PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWriteItems)$/;
const READS = /^(GetItem|Query|Scan|BatchGetItem|TransactGetItems)$/;

// The document client's commands run under the low-level command's name (PutCommand → PutItemCommand); both
// forms map to the API operation.
const DOCUMENT_NAMES: Record<string, string> = {
  Put: 'PutItem',
  Get: 'GetItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  BatchWrite: 'BatchWriteItem',
  BatchGet: 'BatchGetItem',
  TransactWrite: 'TransactWriteItems',
  TransactGet: 'TransactGetItems',
};
const operationOf = (commandName: string): string => {
  const bare = commandName.replace(/Command$/, '');
  return DOCUMENT_NAMES[bare] ?? bare;
};

const add = (key: string, kind: keyof Units, units: number) => {
  count.units[key] ??= { read: 0, write: 0 };
  count.units[key][kind] += units;
};

interface Reported {
  TableName?: string;
  CapacityUnits?: number;
  Table?: { CapacityUnits?: number };
  GlobalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
  LocalSecondaryIndexes?: Record<string, { CapacityUnits?: number }>;
}

const addReported = (list: Reported[], kind: keyof Units) => {
  for (const c of list) {
    const table = c.TableName ?? '?';
    const indexes = { ...c.GlobalSecondaryIndexes, ...c.LocalSecondaryIndexes };
    const onIndexes = Object.values(indexes).reduce((s, i) => s + (i.CapacityUnits ?? 0), 0);
    add(table, kind, c.Table?.CapacityUnits ?? (c.CapacityUnits ?? 0) - onIndexes);
    for (const [name, i] of Object.entries(indexes)) add(`${table}/${name}`, kind, i.CapacityUnits ?? 0);
  }
};

/**
 * The size of an item by DynamoDB's rules (attribute names plus values: a string's UTF-8 bytes, a number ~1 byte
 * per two significant digits + 1, binary its bytes, a boolean or null 1, a list or map 3 + 1 per element + the
 * elements, a set its elements), from the document client's plain values.
 */
export const itemSize = (item: Record<string, unknown>): number =>
  Object.entries(item).reduce((s, [name, value]) => s + Buffer.byteLength(name) + valueSize(value), 0);

const valueSize = (value: unknown): number => {
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') {
    const digits = String(value)
      .replace(/^-|\.|e.*$/g, '')
      .replace(/^0+|0+$/g, '').length;
    return Math.ceil(Math.max(1, digits) / 2) + 1;
  }
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce<number>((s, v) => s + valueSize(v), 0);
  if (Array.isArray(value)) return 3 + value.reduce<number>((s, v) => s + 1 + valueSize(v), 0);
  if (value && typeof value === 'object')
    return 3 + Object.entries(value).reduce((s, [k, v]) => s + 1 + Buffer.byteLength(k) + valueSize(v), 0);
  return 1;
};

/** Write units of one item write: 1 per KB rounded up, twice in a transaction. */
export const writeUnits = (size: number, transactional = false): number =>
  Math.max(1, Math.ceil(size / 1024)) * (transactional ? 2 : 1);

/** Read units of reading `size` bytes: 1 per 4 KB rounded up, half when eventually consistent, twice in a transaction. */
export const readUnits = (size: number, mode: 'eventual' | 'strong' | 'transactional' = 'eventual'): number =>
  Math.max(1, Math.ceil(size / 4096)) * { eventual: 0.5, strong: 1, transactional: 2 }[mode];

type Input = Record<string, unknown>;
type Item = Record<string, unknown>;

/** The item a single write names: a Put's item, else its key (the stored item's size is not known here). */
const writtenItem = (input: Input): Item => (input.Item ?? input.Key ?? {}) as Item;

/** Units of a data call from its request and answer, for when DynamoDB reported none (table only). */
const estimate = (operation: string, input: Input, output: Input | undefined): Units => {
  switch (operation) {
    case 'PutItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return { read: 0, write: writeUnits(itemSize(writtenItem(input))) };
    case 'BatchWriteItem': {
      const requests = Object.values((input.RequestItems ?? {}) as Record<string, Item[]>).flat();
      const items = requests.map((r) => ((r.PutRequest ?? r.DeleteRequest) as Input | undefined) ?? {});
      return { read: 0, write: items.reduce((s, r) => s + writeUnits(itemSize(writtenItem(r))), 0) };
    }
    case 'TransactWriteItems': {
      const items = (input.TransactItems ?? []) as Array<Record<string, Input>>;
      const write = items.reduce(
        (s, t) => s + writeUnits(itemSize(writtenItem(Object.values(t)[0] ?? {})), true),
        0,
      );
      return { read: 0, write };
    }
    case 'GetItem':
      return {
        read: readUnits(itemSize((output?.Item ?? {}) as Item), input.ConsistentRead ? 'strong' : 'eventual'),
        write: 0,
      };
    case 'Query':
    case 'Scan': {
      const items = (output?.Items ?? []) as Item[];
      const size = items.reduce((s, i) => s + itemSize(i), 0);
      return { read: readUnits(size, input.ConsistentRead ? 'strong' : 'eventual'), write: 0 };
    }
    case 'BatchGetItem': {
      const items = Object.values((output?.Responses ?? {}) as Record<string, Item[]>).flat();
      return { read: items.reduce((s, i) => s + readUnits(itemSize(i)), 0), write: 0 };
    }
    case 'TransactGetItems': {
      const items = ((output?.Responses ?? []) as Array<{ Item?: Item }>).map((r) => r.Item ?? {});
      return { read: items.reduce((s, i) => s + readUnits(itemSize(i), 'transactional'), 0), write: 0 };
    }
    default:
      return { read: 0, write: 0 };
  }
};

const tableOf = (operation: string, input: Input): string => {
  if (typeof input.TableName === 'string') return input.TableName;
  const named = (input.RequestItems ?? {}) as Record<string, unknown>;
  const first = Object.keys(named)[0];
  if (first) return first;
  const item = ((input.TransactItems ?? []) as Array<Record<string, Input>>)[0];
  const table = item ? Object.values(item)[0]?.TableName : undefined;
  return typeof table === 'string' ? table : `?${operation}`;
};

const addEstimate = (operation: string, input: Input, output: Input | undefined) => {
  const units = estimate(operation, input, output);
  const table = tableOf(operation, input);
  addComputed(table, units);
};

const addComputed = (table: string, units: Units, indexes: Record<string, number> = {}) => {
  add(table, 'read', units.read);
  add(table, 'write', units.write);
  for (const [name, write] of Object.entries(indexes)) add(`${table}/${name}`, 'write', write);
  count.computed.requests++;
  count.computed.read += units.read;
  count.computed.write += units.write + Object.values(indexes).reduce((s, w) => s + w, 0);
};

/** A write refused by its condition (a single write, or a transaction cancelled by one of its conditions). */
const refusedByCondition = (error: unknown): boolean => {
  const name = (error as { name?: string } | undefined)?.name;
  return name === 'ConditionalCheckFailedException' || name === 'TransactionCanceledException';
};

const record = (operation: string, input: Input, output: Input | undefined, error?: unknown) => {
  const kind: keyof Units | undefined = WRITES.test(operation)
    ? 'write'
    : READS.test(operation)
      ? 'read'
      : undefined;
  if (!kind) return;
  if (error !== undefined) {
    // A refused write is billed like the write; other failures (throttling, validation) are not.
    if (kind === 'write' && refusedByCondition(error)) addEstimate(operation, input, undefined);
    return;
  }
  const reported = output?.ConsumedCapacity as Reported | Reported[] | undefined;
  if (reported === undefined) return addEstimate(operation, input, output);
  addReported(Array.isArray(reported) ? reported : [reported], kind);
};

// Transactions priced item by item (against DynamoDB Local, whose report for them is one item's).

interface Schema {
  keys: string[];
  indexes: Array<{
    name: string;
    keys: string[];
    projection: 'ALL' | 'KEYS_ONLY' | 'INCLUDE';
    include: string[];
  }>;
}
/** Requests this module makes itself (schemas, items before and after a transaction): not counted. */
const internal = new WeakSet<object>();
const schemas = new Map<string, Promise<Schema>>();

const schemaOf = (client: DynamoDBClient, table: string): Promise<Schema> => {
  let schema = schemas.get(table);
  if (!schema) {
    const input = { TableName: table };
    internal.add(input);
    schema = client.send(new DescribeTableCommand(input)).then(({ Table }) => ({
      keys: (Table?.KeySchema ?? []).map((k) => k.AttributeName ?? ''),
      indexes: (Table?.GlobalSecondaryIndexes ?? []).map((g) => ({
        name: g.IndexName ?? '',
        keys: (g.KeySchema ?? []).map((k) => k.AttributeName ?? ''),
        projection: g.Projection?.ProjectionType ?? 'ALL',
        include: g.Projection?.NonKeyAttributes ?? [],
      })),
    }));
    schemas.set(table, schema);
  }
  return schema;
};

type Written = { table: string; key: Item; kind: string };

const writtenItems = async (client: DynamoDBClient, input: Input): Promise<Written[]> =>
  Promise.all(
    ((input.TransactItems ?? []) as Array<Record<string, Input>>).map(async (t) => {
      const [kind, w] = Object.entries(t)[0] ?? ['', {}];
      const table = String(w.TableName);
      const schema = await schemaOf(client, table);
      const source = (w.Key ?? w.Item ?? {}) as Item;
      return { table, kind, key: Object.fromEntries(schema.keys.map((k) => [k, source[k]])) };
    }),
  );

/** The current version of each item (consistent reads, 100 keys a request), in order; undefined when absent. */
const readItems = async (client: DynamoDBClient, items: Written[]): Promise<Array<Item | undefined>> => {
  const documents = DynamoDBDocumentClient.from(client);
  const found = new Map<string, Item>();
  const id = (table: string, key: Item) => `${table}|${JSON.stringify(key, Object.keys(key).sort())}`;
  for (let i = 0; i < items.length; i += 100) {
    const RequestItems: Record<string, { Keys: Item[]; ConsistentRead: boolean }> = {};
    for (const w of items.slice(i, i + 100)) {
      RequestItems[w.table] ??= { Keys: [], ConsistentRead: true };
      RequestItems[w.table]?.Keys.push(w.key);
    }
    let request: typeof RequestItems | undefined = RequestItems;
    while (request && Object.keys(request).length > 0) {
      const input = { RequestItems: request };
      internal.add(input);
      const out = await documents.send(new BatchGetCommand(input));
      for (const [table, list] of Object.entries(out.Responses ?? {}))
        for (const item of list) {
          const schema = await schemaOf(client, table);
          found.set(id(table, Object.fromEntries(schema.keys.map((k) => [k, item[k]]))), item);
        }
      request = out.UnprocessedKeys as typeof RequestItems | undefined;
    }
  }
  return items.map((w) => found.get(id(w.table, w.key)));
};

const projected = (item: Item, schema: Schema, index: Schema['indexes'][number]): Item => {
  if (index.projection === 'ALL') return item;
  const names = new Set([...schema.keys, ...index.keys, ...index.include]);
  return Object.fromEntries(Object.entries(item).filter(([k]) => names.has(k)));
};
const inIndex = (item: Item | undefined, keys: string[]): item is Item =>
  item !== undefined && keys.every((k) => item[k] !== undefined);
const same = (a: Item, b: Item) =>
  JSON.stringify(a, Object.keys(a).sort()) === JSON.stringify(b, Object.keys(b).sort());

/** Write units of one index for one item's change: entries removed, added or rewritten, 1 per KB each (not doubled in a transaction). */
const indexUnits = (
  schema: Schema,
  index: Schema['indexes'][number],
  before?: Item,
  after?: Item,
): number => {
  const was = inIndex(before, index.keys) ? projected(before as Item, schema, index) : undefined;
  const is = inIndex(after, index.keys) ? projected(after as Item, schema, index) : undefined;
  const units = (item: Item) => writeUnits(itemSize(item));
  if (was && is) {
    const moved = index.keys.some((k) => JSON.stringify(was[k]) !== JSON.stringify(is[k]));
    if (moved) return units(was) + units(is);
    return same(was, is) ? 0 : Math.max(units(was), units(is));
  }
  return (was ? units(was) : 0) + (is ? units(is) : 0);
};

const priceTransaction = async (
  client: DynamoDBClient,
  items: Written[],
  before: Array<Item | undefined>,
  after: Array<Item | undefined>,
) => {
  for (const [i, w] of items.entries()) {
    const schema = await schemaOf(client, w.table);
    const old = before[i];
    const now = w.kind === 'ConditionCheck' ? old : after[i];
    add(w.table, 'write', writeUnits(Math.max(itemSize(old ?? {}), itemSize(now ?? {})), true));
    for (const index of schema.indexes)
      add(
        `${w.table}/${index.name}`,
        'write',
        w.kind === 'ConditionCheck' ? 0 : indexUnits(schema, index, old, now),
      );
  }
  count.computed.requests++;
};

/** A transaction sent with its items read before and after, and priced from them. */
const sendPriced = async <T>(client: DynamoDBClient, input: Input, send: (input: Input) => Promise<T>) => {
  const items = await writtenItems(client, input);
  const before = await readItems(client, items);
  try {
    const out = await send(input);
    await priceTransaction(client, items, before, await readItems(client, items));
    return out;
  } catch (error) {
    record('TransactWriteItems', input, undefined, error);
    throw error;
  }
};

/**
 * Adds the counting middleware to a client (and so to every document client built on it). `priceTransactions`:
 * compute transactions' units item by item instead of taking the report (for DynamoDB Local, see above).
 */
export const countCapacity = (
  client: DynamoDBClient,
  options: { priceTransactions?: boolean } = {},
): void => {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (internal.has(args.input as object)) return next(args);
      const operation = operationOf(String(context.commandName ?? ''));
      const data = WRITES.test(operation) || READS.test(operation);
      // A copy: the caller's command input stays as it wrote it.
      const input = (data ? { ...args.input, ReturnConsumedCapacity: 'INDEXES' } : args.input) as Input;
      count.requests++;
      count.operations[operation] = (count.operations[operation] ?? 0) + 1;
      if (options.priceTransactions && operation === 'TransactWriteItems')
        return sendPriced(client, input, (priced) => next({ ...args, input: priced }));
      try {
        const out = await next({ ...args, input });
        record(operation, input, out.output as unknown as Input);
        return out;
      } catch (error) {
        record(operation, input, undefined, error);
        throw error;
      }
    },
    { step: 'initialize', name: 'countConsumedCapacity', override: true },
  );
};
