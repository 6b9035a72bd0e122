import { describe, expect, it } from 'vitest';
import type { TransactItem } from '../../lib/play/repository.js';
import {
  failedUnits,
  MAX_TRANSACTION_ITEMS,
  packTransactions,
  writeKey,
} from '../../lib/play/save-groups.js';

const update = (pk: string, sk = 'ALL'): TransactItem => ({
  Update: {
    TableName: 'Play',
    Key: { pk, sk },
    UpdateExpression: 'ADD points :p',
    ExpressionAttributeValues: { ':p': 1 },
  },
});
const put = (pk: string): TransactItem => ({
  Put: {
    TableName: 'Play',
    Item: { pk, sk: 'IDEM', accepted: 1 },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

/** A player's writes as batch saves make them: day total, all-time total, session (+ idempotency record). */
const player = (name: string, session = `S-${name}`, key?: string) => ({
  name,
  items: [
    update(`TOTAL#${name}`, 'DAY#2026-01-01'),
    update(`TOTAL#${name}`),
    update(session, 'SESSION'),
    ...(key ? [put(key)] : []),
  ],
});

const keysOf = (group: Array<{ items: TransactItem[] }>) => group.flatMap((u) => u.items.map(writeKey));

describe('packTransactions', () => {
  it('packs 100 players of 3 writes into 4 balanced transactions of at most 100 items', () => {
    const units = Array.from({ length: 100 }, (_, i) => player(`p${i}`));
    const groups = packTransactions(units);
    expect(groups.map((g) => keysOf(g).length)).toEqual([75, 75, 75, 75]);
    expect(
      groups
        .flat()
        .map((u) => u.name)
        .sort(),
    ).toEqual(units.map((u) => u.name).sort());
  });

  it('fills one transaction up to the limit and opens another only beyond it', () => {
    expect(packTransactions(Array.from({ length: 33 }, (_, i) => player(`p${i}`)))).toHaveLength(1);
    const groups = packTransactions(Array.from({ length: 34 }, (_, i) => player(`p${i}`)));
    expect(groups.map((g) => g.length)).toEqual([17, 17]);
    for (const g of groups) expect(keysOf(g).length).toBeLessThanOrEqual(MAX_TRANSACTION_ITEMS);
  });

  it('never puts one item twice in a transaction: players naming the same session or idempotency key', () => {
    const units = [
      player('a', 'S-shared', 'K1'),
      player('b', 'S-shared'),
      player('c', 'S-c', 'K1'),
      player('d', 'S-d', 'K2'),
      player('e', 'S-shared', 'K2'),
    ];
    const groups = packTransactions(units);
    for (const g of groups) expect(new Set(keysOf(g)).size).toBe(keysOf(g).length);
    expect(groups.flat()).toHaveLength(units.length);
    // a, b and e share a session: three transactions at least.
    expect(groups.length).toBe(3);
  });

  it('keeps a unit whole, alone when it is larger than a transaction', () => {
    const big = { name: 'big', items: Array.from({ length: 120 }, (_, i) => update(`B${i}`)) };
    const groups = packTransactions([player('a'), big, player('b')]);
    expect(groups.find((g) => g.includes(big))).toEqual([big]);
    expect(groups.flat()).toHaveLength(3);
  });

  it('packs nothing into no transaction', () => {
    expect(packTransactions([])).toEqual([]);
  });
});

describe('failedUnits', () => {
  const units = [player('a'), player('b', 'S-b', 'K'), player('c')];

  it('names the players whose writes failed, by the position of each reason', () => {
    const reasons = [
      'None',
      'None',
      'None',
      'None',
      'None',
      'None',
      'ConditionalCheckFailed',
      'None',
      'None',
      'None',
    ];
    expect(failedUnits(units, reasons).map((u) => u.name)).toEqual(['b']);
    reasons[0] = 'TransactionConflict';
    expect(failedUnits(units, reasons).map((u) => u.name)).toEqual(['a', 'b']);
  });

  it('counts every player failed when the reasons name none or do not line up with the items', () => {
    expect(failedUnits(units, Array(10).fill('None'))).toEqual(units);
    expect(failedUnits(units, [])).toEqual(units);
    expect(failedUnits(units, ['ConditionalCheckFailed'])).toEqual(units);
  });
});
