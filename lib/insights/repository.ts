// The reads of a game's day counters (./counters.ts): each copy's partition, one Query over the days asked, summed.
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { dynamo } from '../adapters/dynamodb.js';
import { COUNTERS, type Counter, INSIGHTS_COPIES, insightsKeys, insightsTable } from './keys.js';

type Item = Record<string, NativeAttributeValue>;
export type DayCounters = Record<Counter, number>;

export const zeroCounters = (): DayCounters =>
  Object.fromEntries(COUNTERS.map((name) => [name, 0])) as DayCounters;

/** Every item of one copy's partition between two days (both included), following the Query's pages. */
const copyItems = async (gameId: string, copy: number, from: string, to: string): Promise<Item[]> => {
  const items: Item[] = [];
  let start: Record<string, NativeAttributeValue> | undefined;
  do {
    const out = await dynamo().send(
      new QueryCommand({
        TableName: insightsTable(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': insightsKeys.partition(gameId, copy),
          ':from': `${insightsKeys.SK_PREFIX}${from}`,
          ':to': `${insightsKeys.SK_PREFIX}${to}`,
        },
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
};

/**
 * The counters of a game's days between `from` and `to` (UTC days, both included), summed over the copies; a day
 * nothing counted on is absent. One Query per copy (INSIGHTS_COPIES, in parallel), each a range of one partition.
 */
export const dayCounters = async (gameId: string, from: string, to: string) => {
  const copies = await Promise.all(
    Array.from({ length: INSIGHTS_COPIES }, (_, copy) => copyItems(gameId, copy, from, to)),
  );
  const days = new Map<string, DayCounters>();
  for (const item of copies.flat()) {
    const day = String(item.sk).slice(insightsKeys.SK_PREFIX.length);
    const sum = days.get(day) ?? zeroCounters();
    for (const name of COUNTERS) sum[name] += Number(item[name] ?? 0);
    days.set(day, sum);
  }
  return days;
};
