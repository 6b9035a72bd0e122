// Several players' writes share one TransactWriteItems (pure, no I/O): packing them within DynamoDB's limits,
// and telling from a cancelled transaction which players' writes failed. Used by save-points.ts.
import type { TransactItem } from './repository.js';

/** DynamoDB's limit of items per TransactWriteItems. */
export const MAX_TRANSACTION_ITEMS = 100;
/**
 * Request bytes (JSON) per transaction, well under DynamoDB's 4 MB per transaction: play items stay under
 * 1 KB, so the item limit binds long before this.
 */
export const MAX_TRANSACTION_BYTES = 3_000_000;

/** The writes of one player (all or nothing: never split across transactions). */
export interface Writes {
  items: TransactItem[];
}

interface Sized<T> {
  unit: T;
  keys: string[];
  bytes: number;
}

interface Group<T> {
  members: Array<Sized<T>>;
  items: number;
  bytes: number;
  keys: Set<string>;
}

/** The table and key of a transaction item (the play table's keys are pk and sk). */
export const writeKey = (item: TransactItem): string => {
  const op = item.Update ?? item.Delete ?? item.ConditionCheck;
  const key = item.Put ? item.Put.Item : op?.Key;
  return `${item.Put?.TableName ?? op?.TableName}|${key?.pk}|${key?.sk}`;
};

const itemCount = <T extends Writes>(units: T[]) => units.reduce((sum, u) => sum + u.items.length, 0);

/** Within the limits and no item twice (DynamoDB rejects that). An empty group takes any unit. */
const fits = <T extends Writes>(group: Group<T>, s: Sized<T>) =>
  group.members.length === 0 ||
  (group.items + s.unit.items.length <= MAX_TRANSACTION_ITEMS &&
    group.bytes + s.bytes <= MAX_TRANSACTION_BYTES &&
    !s.keys.some((k) => group.keys.has(k)));

/** Each unit into the least-loaded of `count` groups it fits; undefined when one fits none. */
const packInto = <T extends Writes>(sized: Array<Sized<T>>, count: number): Array<Group<T>> | undefined => {
  const groups: Array<Group<T>> = Array.from({ length: count }, () => ({
    members: [],
    items: 0,
    bytes: 0,
    keys: new Set(),
  }));
  for (const s of sized) {
    const open = groups.filter((g) => fits(g, s));
    if (open.length === 0) return undefined;
    const group = open.reduce((least, g) => (g.items < least.items ? g : least));
    group.members.push(s);
    group.items += s.unit.items.length;
    group.bytes += s.bytes;
    for (const k of s.keys) group.keys.add(k);
  }
  return groups;
};

/**
 * Packs units into as few transactions as the limits allow, balanced between them: at most 100 items, under
 * the byte budget, and no item twice in one transaction (two players of a batch can name the same session or
 * idempotency key). A unit larger than a transaction goes alone, as it always did.
 */
export const packTransactions = <T extends Writes>(units: T[]): T[][] => {
  const sized = units.map((unit) => ({
    unit,
    keys: unit.items.map(writeKey),
    bytes: JSON.stringify(unit.items).length,
  }));
  const least = Math.max(1, Math.ceil(itemCount(units) / MAX_TRANSACTION_ITEMS));
  for (let count = least; count < units.length; count++) {
    const groups = packInto(sized, count);
    if (groups) return groups.filter((g) => g.members.length > 0).map((g) => g.members.map((s) => s.unit));
  }
  return units.map((unit) => [unit]);
};

/**
 * The units whose writes a cancelled transaction of `units` (items in that order) names as failed: its
 * CancellationReasons hold one code per item (`ConditionalCheckFailed`, `TransactionConflict`, …, `None` for
 * an item that did not fail). When the reasons name none, or do not line up with the items, all units failed.
 */
export const failedUnits = <T extends Writes>(units: T[], reasons: string[]): T[] => {
  if (reasons.length !== itemCount(units)) return units;
  let offset = 0;
  const failed = units.filter((unit) => {
    const own = reasons.slice(offset, offset + unit.items.length);
    offset += unit.items.length;
    return own.some((code) => code !== 'None');
  });
  return failed.length > 0 ? failed : units;
};
