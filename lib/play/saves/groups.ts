// Several players' writes share one TransactWriteItems (pure, no I/O): packing them within DynamoDB's limits,
// merging their score-tree counter ADDs to one item, and telling from a cancelled transaction which players'
// writes failed. Used by saves/save.ts.
import {
  type InsightsAdds,
  insightsAddsOf,
  insightsInCopy,
  insightsWrite,
  sumAdds,
} from '../../insights/index.js';
import type { DayActivity } from '../keys.js';
import { type EntrantsAdd, entrantsItem, entrantsOf } from '../ranks/tournament-entries.js';
import {
  counterDeltas,
  counterInCopy,
  counterItem,
  type MetaAdds,
  metaAddsOf,
  metaItem,
} from '../ranks/writes.js';
import type { TransactItem } from '../repository.js';

/** A counter item or a day's figures moved to copy `copy` of its item (any other item unchanged). */
const inCopy = (item: TransactItem, copy: number) => insightsInCopy(counterInCopy(item, copy), copy);

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
  /** Keys no other unit of its transaction may write. */
  keys: string[];
  /** Score-tree counter and board meta items it ADDs to (merged with other units' ADDs to the same item). */
  counters: string[];
  bytes: number;
}

interface Group<T> {
  members: Array<Sized<T>>;
  items: number;
  bytes: number;
  keys: Set<string>;
  counters: Set<string>;
}

/** The table and key of a transaction item (the play table's keys are pk and sk). */
export const writeKey = (item: TransactItem): string => {
  const op = item.Update ?? item.Delete ?? item.ConditionCheck;
  const key = item.Put ? item.Put.Item : op?.Key;
  return `${item.Put?.TableName ?? op?.TableName}|${key?.pk}|${key?.sk}`;
};

/** The items a unit adds to a group: its own, and the counter items the group does not write yet. */
const added = <T>(group: Group<T>, s: Sized<T>) =>
  s.keys.length + s.counters.filter((k) => !group.counters.has(k)).length;

/** Within the limits and no item twice (DynamoDB rejects that). An empty group takes any unit. */
const fits = <T extends Writes>(group: Group<T>, s: Sized<T>) =>
  group.members.length === 0 ||
  (group.items + added(group, s) <= MAX_TRANSACTION_ITEMS &&
    group.bytes + s.bytes <= MAX_TRANSACTION_BYTES &&
    !s.keys.some((k) => group.keys.has(k)));

/** Each unit into the least-loaded of `count` groups it fits; undefined when one fits none. */
const packInto = <T extends Writes>(sized: Array<Sized<T>>, count: number): Array<Group<T>> | undefined => {
  const groups: Array<Group<T>> = Array.from({ length: count }, () => ({
    members: [],
    items: 0,
    bytes: 0,
    keys: new Set(),
    counters: new Set(),
  }));
  for (const s of sized) {
    const open = groups.filter((g) => fits(g, s));
    if (open.length === 0) return undefined;
    // The group it adds the fewest items to (players counting in the same copies go together), then the
    // least loaded.
    const cost = (g: Group<T>) => added(g, s) * MAX_TRANSACTION_ITEMS + g.items;
    const group = open.reduce((best, g) => (cost(g) < cost(best) ? g : best));
    group.members.push(s);
    group.items += added(group, s);
    group.bytes += s.bytes;
    for (const k of s.keys) group.keys.add(k);
    for (const k of s.counters) group.counters.add(k);
  }
  return groups;
};

/**
 * Packs units into as few transactions as the limits allow, balanced between them: at most 100 items, under
 * the byte budget, and no item twice in one transaction (two players of a batch can name the same session or
 * idempotency key; their counter ADDs to one score-tree item are merged instead, by `groupTransaction`). A unit larger than a transaction goes alone, as it always did.
 */
export const packTransactions = <T extends Writes>(units: T[]): T[][] => {
  const sized = units.map((unit) => ({
    unit,
    keys: unit.items.filter((i) => !mergeable(i)).map(writeKey),
    // A counter ADD by its node, whatever copy the player's move named: the transaction writes all of its counter
    // ADDs to one copy of its own (`groupTransaction`'s `counterCopy`), so players of different copies share it.
    counters: unit.items.filter(mergeable).map((i) => writeKey(inCopy(i, 0))),
    bytes: JSON.stringify(unit.items).length,
  }));
  // Units writing the same counter items (players counting in the same copies) one after another, the items
  // most units share first (a board's meta item before its counters), so that the packing gathers them
  // before it spreads: a transaction then carries each shared counter item once.
  const sharing = new Map<string, number>();
  for (const s of sized) for (const k of s.counters) sharing.set(k, (sharing.get(k) ?? 0) + 1);
  const order = (a: string, b: string) =>
    (sharing.get(b) ?? 0) - (sharing.get(a) ?? 0) || (a < b ? -1 : a > b ? 1 : 0);
  const signature = new Map(sized.map((s) => [s, [...s.counters].sort(order).join(',')]));
  const bySignature = (a: (typeof sized)[number], b: (typeof sized)[number]) => {
    const x = signature.get(a) ?? '';
    const y = signature.get(b) ?? '';
    return x < y ? -1 : x > y ? 1 : 0;
  };
  sized.sort(bySignature);
  const counterItems = new Set(sized.flatMap((s) => s.counters)).size;
  const own = sized.reduce((sum, s) => sum + s.keys.length, 0);
  const least = Math.max(1, Math.ceil((own + counterItems) / MAX_TRANSACTION_ITEMS));
  for (let count = least; count < units.length; count++) {
    const groups = packInto(sized, count);
    if (groups) return groups.filter((g) => g.members.length > 0).map((g) => g.members.map((s) => s.unit));
  }
  return units.map((unit) => [unit]);
};

/** A mergeable item's parts: a counter's deltas by digit (summed), or a board meta item's adds (joined, summed). */
type Merge =
  /** A game's figures of a day (lib/insights): the adds summed. */
  | { kind: 'insights'; gameId: string; day: string; copy: number; adds: InsightsAdds }
  | { kind: 'counter'; key: { pk: string; sk: string }; parts: Map<number, number> }
  | {
      kind: 'meta';
      key: { pk: string; sk: string };
      adds: MetaAdds;
      /** A day board's entry in the index of games with activity (the same for every write that sets it). */
      activity?: DayActivity | undefined;
    }
  /** A tournament period's entrants: players entered summed, the room for them checked once. */
  | ({ kind: 'entrants' } & EntrantsAdd);

const mergeOf = (item: TransactItem): Merge | undefined => {
  const figures = insightsAddsOf(item);
  if (figures) return { kind: 'insights', ...figures };
  const deltas = counterDeltas(item);
  if (deltas) return { kind: 'counter', key: deltas.key, parts: new Map(deltas.digits) };
  const meta = metaAddsOf(item);
  if (meta) return { kind: 'meta', key: meta.key, adds: meta.adds, activity: meta.activity };
  const entrants = entrantsOf(item);
  return entrants && { kind: 'entrants', ...entrants };
};

const union = (a: number[] | undefined, b: number[] | undefined) =>
  a || b ? [...new Set([...(a ?? []), ...(b ?? [])])] : undefined;

/** Merges another unit's write to the same item into `into`: deltas summed, sets joined, players summed. */
const absorb = (into: Merge, other: Merge) => {
  if (into.kind === 'counter' && other.kind === 'counter') {
    for (const [part, value] of other.parts) into.parts.set(part, (into.parts.get(part) ?? 0) + value);
    return;
  }
  if (into.kind === 'insights' && other.kind === 'insights') {
    into.adds = sumAdds(into.adds, other.adds);
    return;
  }
  if (into.kind === 'entrants' && other.kind === 'entrants') {
    into.added += other.added;
    return;
  }
  if (into.kind !== 'meta' || other.kind !== 'meta') return;
  const a = into.adds;
  const b = other.adds;
  into.adds = {
    levels: union(a.levels, b.levels),
    widths: union(a.widths, b.widths),
    dayWidths: union(a.dayWidths, b.dayWidths),
    players: (a.players ?? 0) + (b.players ?? 0) || undefined,
  };
  into.activity ??= other.activity;
};

/** The one item of merged writes; undefined when counter deltas cancel out. */
const mergedItem = (merge: Merge): TransactItem | undefined => {
  if (merge.kind === 'meta') return metaItem(merge.key, merge.adds, merge.activity);
  if (merge.kind === 'entrants') return entrantsItem(merge);
  if (merge.kind === 'insights') return insightsWrite(merge.gameId, merge.day, merge.adds, merge.copy);
  const nonZero = new Map([...merge.parts].filter(([, d]) => d !== 0));
  return nonZero.size > 0 ? counterItem(merge.key, nonZero) : undefined;
};

/** Items several units of a transaction may write: merged into one (counter deltas summed, meta adds joined). */
const mergeable = (item: TransactItem) => mergeOf(item) !== undefined;

/** A group's transaction: its items, and for each item the units whose writes it carries. */
export interface GroupTransaction<T> {
  items: TransactItem[];
  owners: T[][];
}

/**
 * The transaction of a group of units: every unit's items in order, except that the ADDs of several units to
 * one score-tree counter item become one item with the deltas summed (DynamoDB refuses an item twice in a
 * transaction, and two players of a batch often count in the same counter item), and their raises of one
 * board's meta item one item with their adds joined. A merged counter item whose deltas cancel out is left out.
 * With `counterCopy`, every counter ADD goes to that copy of its node: one item per node for the whole group.
 */
export const groupTransaction = <T extends Writes>(units: T[], counterCopy?: number): GroupTransaction<T> => {
  const slots: Array<{ item: TransactItem; owners: T[] }> = [];
  const merges = new Map<string, { slot: number; merge: Merge }>();
  for (const unit of units) {
    for (const written of unit.items) {
      const item = counterCopy === undefined ? written : inCopy(written, counterCopy);
      const merge = mergeOf(item);
      const merged = merge && merges.get(writeKey(item));
      if (merge && merged) {
        absorb(merged.merge, merge);
        slots[merged.slot]?.owners.push(unit);
        continue;
      }
      if (merge) merges.set(writeKey(item), { slot: slots.length, merge });
      slots.push({ item, owners: [unit] });
    }
  }
  const dropped = new Set<number>();
  for (const { slot, merge } of merges.values()) {
    const at = slots[slot];
    const item = mergedItem(merge);
    if (!item) dropped.add(slot);
    else if (at) at.item = item;
  }
  const kept = slots.filter((_, i) => !dropped.has(i));
  return { items: kept.map((s) => s.item), owners: kept.map((s) => [...new Set(s.owners)]) };
};

/**
 * The units whose writes a cancelled transaction names as failed: its CancellationReasons hold one code per
 * item (`ConditionalCheckFailed`, `TransactionConflict`, …, `None` for an item that did not fail); a merged
 * counter item fails every unit that wrote to it. When the reasons name none, or do not line up with the
 * items, all units failed.
 */
export const failedUnits = <T>(tx: GroupTransaction<T>, reasons: string[]): T[] => {
  const all = [...new Set(tx.owners.flat())];
  if (reasons.length !== tx.items.length) return all;
  const failed = new Set(tx.owners.filter((_, i) => reasons[i] !== 'None').flat());
  return failed.size > 0 ? all.filter((u) => failed.has(u)) : all;
};
