// A game's figures of a UTC day as counters: the transaction item that ADDs what one change moves, written by the
// change's own transaction (a save, an SDK commit, an invalidation, a tournament join, a webhook attempt), so
// that the counters move exactly when the change commits and never on a retry the change's conditions refuse.
// The items live in the play table, in partitions of their own (`INSIGHTS#`); the sales and payouts are the pool's
// day books (lib/rewards/pool-days.ts), not counted twice here.
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import type { TransactItem } from '../adapters/dynamodb.js';
import {
  COUNTERS,
  daysBetween,
  INSIGHTS_COPIES,
  type InsightsAdds,
  insightsKeys,
  insightsTable,
  RETENTION_OFFSETS,
} from './keys.js';

const randomCopy = () => Math.floor(Math.random() * INSIGHTS_COPIES);

/**
 * What a player's first counted activity of `day` adds: an active player, new when first seen that day, and a
 * return of its cohort when `day` is 1, 7 or 30 days after the first (`firstDay`: undefined for a new player).
 */
export const activityAdds = (day: string, firstDay: string | undefined): InsightsAdds => {
  if (firstDay === undefined) return { activePlayers: 1, newPlayers: 1 };
  const after = daysBetween(firstDay, day);
  const offset = RETENTION_OFFSETS.find((n) => n === after);
  return offset === undefined ? { activePlayers: 1 } : { activePlayers: 1, [`back${offset}`]: 1 };
};

/** Two sets of adds summed (a change moving several counters of one day writes one item). */
export const sumAdds = (a: InsightsAdds, b: InsightsAdds): InsightsAdds => {
  const out: InsightsAdds = { ...a };
  for (const name of COUNTERS) {
    const v = b[name];
    if (v !== undefined) out[name] = (out[name] ?? 0) + v;
  }
  return out;
};

/**
 * The transaction item ADDing `adds` to a game's day (copy `copy`, random when not given); undefined when nothing
 * moves. Never conditional: the change's own items carry the conditions.
 */
export const insightsWrite = (
  gameId: string,
  day: string,
  adds: InsightsAdds,
  copy: number = randomCopy(),
): TransactItem | undefined => {
  const moves = COUNTERS.flatMap((name) => {
    const v = adds[name];
    return v ? [[name, v] as const] : [];
  });
  if (moves.length === 0) return undefined;
  const values: Record<string, NativeAttributeValue> = { ':g': gameId };
  for (const [name, v] of moves) values[`:${name}`] = v;
  return {
    Update: {
      TableName: insightsTable(),
      Key: insightsKeys.day(gameId, day, copy),
      UpdateExpression: `ADD ${moves.map(([name]) => `${name} :${name}`).join(', ')} SET gameId = :g`,
      ExpressionAttributeValues: values,
    },
  };
};

/**
 * The game, day and adds of an item made by `insightsWrite` (undefined for any other item): the writes of several
 * players of one transaction to one day are merged into one item (lib/play/saves/groups.ts).
 */
export const insightsAddsOf = (item: TransactItem) => {
  const update = item.Update;
  const key = update?.Key as { pk?: unknown; sk?: unknown } | undefined;
  if (typeof key?.pk !== 'string' || !key.pk.startsWith('INSIGHTS#') || typeof key.sk !== 'string')
    return undefined;
  const values = update?.ExpressionAttributeValues ?? {};
  const adds: InsightsAdds = {};
  for (const name of COUNTERS) if (typeof values[`:${name}`] === 'number') adds[name] = values[`:${name}`];
  const gameId = String(values[':g']);
  const copy = Number(key.pk.slice(key.pk.lastIndexOf('#') + 1));
  return { gameId, day: key.sk.slice(insightsKeys.SK_PREFIX.length), copy, adds };
};

/**
 * An item made by `insightsWrite` moved to another copy of its day (any other item unchanged): a day's figures
 * are the sum of its copies, so a transaction may put its ADDs in any of them (lib/play/saves/groups.ts).
 */
export const insightsInCopy = (item: TransactItem, copy: number): TransactItem => {
  const figures = insightsAddsOf(item);
  return figures
    ? (insightsWrite(figures.gameId, figures.day, figures.adds, copy % INSIGHTS_COPIES) ?? item)
    : item;
};
