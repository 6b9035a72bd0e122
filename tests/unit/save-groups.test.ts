import { describe, expect, it } from 'vitest';
import { counterKey, metaKey, shardOf } from '../../lib/play/ranks/board.js';
import { counterItem, counterWrites, metaItem } from '../../lib/play/ranks/writes.js';
import type { TransactItem } from '../../lib/play/repository.js';
import {
  failedUnits,
  groupTransaction,
  MAX_TRANSACTION_ITEMS,
  packTransactions,
  writeKey,
} from '../../lib/play/saves/groups.js';

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
    const tx = groupTransaction(units);
    expect(failedUnits(tx, reasons).map((u) => u.name)).toEqual(['b']);
    reasons[0] = 'TransactionConflict';
    expect(failedUnits(tx, reasons).map((u) => u.name)).toEqual(['a', 'b']);
  });

  it('counts every player failed when the reasons name none or do not line up with the items', () => {
    const tx = groupTransaction(units);
    expect(failedUnits(tx, Array(10).fill('None'))).toEqual(units);
    expect(failedUnits(tx, [])).toEqual(units);
    expect(failedUnits(tx, ['ConditionalCheckFailed'])).toEqual(units);
  });
});

describe('groupTransaction', () => {
  const board = { kind: 'day' as const, gameId: 'g', day: '2026-01-01' };
  const node = { level: 0, node: 0 };
  /** A player with a counter ADD in copy `copy` of node 0 (+1 on digit `to`, -1 on digit `from` when set). */
  const counting = (name: string, copy: number, to: number, from?: number) => ({
    name,
    items: [
      update(`TOTAL#${name}`, 'DAY#2026-01-01'),
      counterItem(
        counterKey(board, node, copy),
        new Map([[to, 1], ...(from === undefined ? [] : [[from, -1] as [number, number]])]),
      ),
      update(`S-${name}`, 'SESSION'),
    ],
  });

  it("merges several players' writes to one board's meta item into one item: levels and widths joined, players summed", () => {
    const raising = (name: string, level: number) => ({
      name,
      items: [
        update(`TOTAL#${name}`, 'DAY#2026-01-01'),
        metaItem(metaKey(board), { levels: [level], widths: [level === 2 ? 4 : 2], players: 2 }),
      ],
    });
    // The first scores on a new board all raise its height: still one transaction.
    const units = [raising('a', 0), raising('b', 2), raising('c', 0)];
    expect(packTransactions(units)).toHaveLength(1);
    const tx = groupTransaction(units);
    expect(tx.items).toHaveLength(4);
    const height = tx.items.filter((i) => i.Update?.Key?.sk === 'HEIGHT');
    expect(height).toEqual([metaItem(metaKey(board), { levels: [0, 2], widths: [2, 4], players: 6 })]);
    expect(tx.owners[tx.items.indexOf(height[0] as TransactItem)]?.map((u) => u.name)).toEqual([
      'a',
      'b',
      'c',
    ]);
  });

  it("keeps a day board's entry in the index of games with activity when merging its height raises", () => {
    const activity = { activeDay: '2026-01-01#3', activeGame: 'g' };
    const raising = (name: string, level: number) => ({
      name,
      items: [
        update(`TOTAL#${name}`, 'DAY#2026-01-01'),
        metaItem(metaKey(board), { levels: [level] }, activity),
      ],
    });
    const tx = groupTransaction([raising('a', 0), raising('b', 2)]);
    const height = tx.items.filter((i) => i.Update?.Key?.sk === 'HEIGHT');
    expect(height).toEqual([metaItem(metaKey(board), { levels: [0, 2] }, activity)]);
    expect(height[0]?.Update?.UpdateExpression).toContain(
      'SET activeDay = :activeDay, activeGame = :activeGame',
    );
  });

  it('packs by counter node, whatever copy each player named: the transaction writes one copy of its own', () => {
    // 49 players of 2 items, each +1 on node 0 in copy i % 8: 98 items and one counter item in one copy.
    const units = Array.from({ length: 49 }, (_, i) => counting(`p${i}`, i % 8, 10));
    const groups = packTransactions(units);
    expect(groups).toHaveLength(1);
    const tx = groupTransaction(groups[0] as typeof units, 5);
    expect(tx.items).toHaveLength(MAX_TRANSACTION_ITEMS - 1);
    const counters = tx.items.filter((i) => i.Update?.Key?.sk === 'RANK');
    expect(counters).toEqual([counterItem(counterKey(board, node, 5), new Map([[10, 49]]))]);
  });

  it('merges the counter ADDs of players who count in one item, and packs them together', () => {
    const units = [counting('a', 3, 10), counting('b', 3, 10, 5), counting('c', 4, 10)];
    expect(packTransactions(units)).toHaveLength(1);
    const tx = groupTransaction(units);
    expect(tx.items).toHaveLength(8);
    const merged = tx.items.find(
      (i) => writeKey(i) === writeKey(counting('a', 3, 1).items[1] as TransactItem),
    );
    expect(merged?.Update?.UpdateExpression).toBe('ADD c10 :d10, c5 :d5');
    expect(merged?.Update?.ExpressionAttributeValues).toEqual({ ':d10': 2, ':d5': -1 });
    // A merged item that fails fails every player that wrote to it, and only those.
    const reasons = tx.items.map((i) => (i === merged ? 'TransactionConflict' : 'None'));
    expect(failedUnits(tx, reasons).map((u) => u.name)).toEqual(['a', 'b']);
  });

  it('packs 100 players with their counter ADDs into 4 transactions, each writing one copy of its own', () => {
    const all = { kind: 'all' as const, gameId: 'g' };
    // Like a batch of 100 players at one score: 3 own writes (day and all-time totals, session) and one counter
    // ADD per board each, over 22 copies: 300 + 44 items, 5 per player before merging.
    const units = Array.from({ length: 100 }, (_, i) => {
      const unit = counting(`p${i}`, i % 22, 10);
      unit.items.push(update(`TOTAL#p${i}`), counterItem(counterKey(all, node, i % 22), new Map([[10, 1]])));
      return unit;
    });
    const groups = packTransactions(units);
    expect(groups).toHaveLength(4);
    // As the save commits them: each transaction's counter ADDs in a copy of its own, one item per board.
    groups.forEach((group, copy) => {
      const items = groupTransaction(group, copy).items;
      expect(items.length).toBeLessThanOrEqual(100);
      expect(items.filter((i) => i.Update?.Key?.sk === 'RANK')).toHaveLength(2);
    });
    expect(groups.flat()).toHaveLength(100);
  });

  it('packs 100 new players of a new board with their counter ADDs and height raises into at most 5 transactions', () => {
    const boards = [
      { kind: 'day' as const, gameId: 'g', day: '2026-03-10' },
      { kind: 'all' as const, gameId: 'g' },
    ];
    // As the save path writes them on a board at its widest: per player 3 own writes and, per board, a
    // score-tree ADD (22 copies).
    const units = Array.from({ length: 100 }, (_, i) => ({
      name: `p${i}`,
      items: [
        update(`TOTAL#p${i}`, 'DAY'),
        update(`TOTAL#p${i}`),
        update(`SESSION#p${i}`),
        ...boards.flatMap((b) => [
          ...counterWrites(b, shardOf(`p${i}`, 22), 0, 10),
          // The board's first batch: every player raises its height (one item all of them share).
          metaItem(metaKey(b), { levels: [0] }),
        ]),
      ],
    }));
    // 300 own + a few shared items: 4 transactions at the least; each writes its counter ADDs to one copy of
    // its own, so a transaction holds one item per node its players touch.
    const groups = packTransactions(units);
    expect(groups.length).toBeLessThanOrEqual(5);
    groups.forEach((group, copy) => {
      expect(groupTransaction(group, copy).items.length).toBeLessThanOrEqual(100);
    });
    expect(new Set(groups.flat())).toEqual(new Set(units));
  });

  it("puts every counter ADD of a group in the group's own copy, one item per node, when given one", () => {
    const units = [counting('a', 3, 10), counting('b', 4, 10, 5), counting('c', 9, 10)];
    const tx = groupTransaction(units, 6);
    const counters = tx.items.filter((i) => i.Update?.Key?.sk === 'RANK');
    expect(counters.map(writeKey)).toEqual([writeKey(counterItem(counterKey(board, node, 6), new Map()))]);
    expect(counters[0]?.Update?.ExpressionAttributeValues).toEqual({ ':d10': 3, ':d5': -1 });
    expect(tx.owners[tx.items.indexOf(counters[0] as TransactItem)]?.map((u) => u.name)).toEqual([
      'a',
      'b',
      'c',
    ]);
    // The players' own items are untouched.
    expect(tx.items.filter((i) => i.Update?.Key?.sk !== 'RANK')).toHaveLength(6);
  });

  it('leaves out a merged counter item whose deltas cancel out', () => {
    const tx = groupTransaction([counting('a', 3, 10, 7), counting('b', 3, 7, 10)]);
    expect(tx.items.map(writeKey).filter((k) => k.includes('RANK'))).toEqual([]);
    expect(tx.owners).toHaveLength(4);
  });
});
