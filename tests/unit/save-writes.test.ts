// A plan's typed writes as transaction items: each `requires` becomes the condition DynamoDB checks with the
// write, and the index attributes come from playIndexes and the totals' board moves (lib/play/ranks/board.ts). No stack: the items are inspected, not sent.
import { describe, expect, it } from 'vitest';
import { playIndexes } from '../../lib/play/keys.js';
import {
  boardPartition,
  counterKey,
  MAX_WIDTH,
  metaKey,
  metaOf,
  rankKey,
  shardOf,
} from '../../lib/play/ranks/board.js';
import { indexUpdate, playTable, updateExpression } from '../../lib/play/repository.js';
import type { PlanWrite, PlayerPlan } from '../../lib/play/saves/model.js';
import { planItems } from '../../lib/play/saves/writes.js';

const AT = '2026-03-10T12:00:00.000Z';
const who = { gameId: 'g1', arcId: 'arc-1' };
const itemsOf = (...writes: PlanWrite[]) =>
  planItems({ results: [], writes, total: 0, at: AT } satisfies PlayerPlan);
const session = { ...who, sessionId: 's1', points: 10, saves: 1, capHits: 0 };
/** A board at its widest (no estimate to keep) with scores up to `height`'s level (null: none yet). */
const wide = (height: number | null) =>
  metaOf({ widths: new Set([MAX_WIDTH]), ...(height === null ? {} : { levels: new Set([height]) }) });
const SHARD = shardOf('arc-1', MAX_WIDTH);

describe('playIndexes and indexUpdate', () => {
  it.each([
    { score: 0, riskyGame: undefined },
    { score: 0.5, riskyGame: undefined },
    { score: 0.501, riskyGame: 'g1' },
  ])('puts a session of risk $score in the risky index: $riskyGame', ({ score, riskyGame }) => {
    expect(playIndexes.risk('g1', { score, reasons: ['x'] })).toEqual({
      riskScore: score,
      riskReasons: ['x'],
      riskyGame,
    });
  });

  it('sets the defined attributes and removes the undefined ones', () => {
    expect(indexUpdate({ boardAll: 'g1', riskyGame: undefined })).toEqual({
      set: ['boardAll = :ixboardAll'],
      remove: ['riskyGame'],
      values: { ':ixboardAll': 'g1' },
    });
  });

  it('writes the clauses of an update in order, leaving out the empty ones', () => {
    expect(updateExpression({ set: ['a = :a'], add: ['n :n', 'm :m'], remove: [] })).toBe(
      'ADD n :n, m :m SET a = :a',
    );
  });
});

describe('planItems', () => {
  it('guards a day total by both caps less what it adds and by the points read, and moves it on the daily board', () => {
    const [item, ...counters] = itemsOf({
      kind: 'addToDay',
      ...who,
      day: '2026-03-10',
      points: 60,
      sessions: 1,
      meta: wide(0),
      requires: { pointsAtMost: 40, sessionsAtMost: 2 },
    });
    const board = { kind: 'day', gameId: 'g1', day: '2026-03-10' } as const;
    expect(item).toEqual({
      Update: {
        TableName: playTable(),
        Key: { pk: 'TOTAL#g1#arc-1', sk: 'DAY#2026-03-10' },
        UpdateExpression:
          'ADD points :add, sessions :ns SET arcId = :a, updatedAt = :now, reachedAt = :now, rankDay = :ixrankDay, rankKey = :ixrankKey',
        ConditionExpression:
          '(attribute_not_exists(points) OR points = :fromPoints) AND (attribute_not_exists(points) OR points <= :dayLimit) AND (attribute_not_exists(sessions) OR sessions <= :sessionLimit)',
        ExpressionAttributeValues: {
          ':add': 60,
          ':ns': 1,
          ':a': 'arc-1',
          ':now': AT,
          ':fromPoints': 0,
          ':ixrankDay': boardPartition(board, SHARD),
          ':ixrankKey': rankKey({ arcId: 'arc-1', points: 60, reachedAt: AT }),
          ':dayLimit': 40,
          ':sessionLimit': 2,
        },
      },
    });
    const add = (key: { pk: string; sk: string }, digit: number) => ({
      Update: {
        TableName: playTable(),
        Key: key,
        UpdateExpression: `ADD c${digit} :d${digit}`,
        ExpressionAttributeValues: { [`:d${digit}`]: 1 },
      },
    });
    // 60 = digit 60 at level 0 of node 0: one counter, in the player's copy (the shard of its entry). Nothing
    // else: the board's height is already 0, and a board at its widest keeps no estimate.
    expect(counters).toEqual([add(counterKey(board, { level: 0, node: 0 }, SHARD), 60)]);
  });

  it('moves a total read at 70 points by 60 from digit 6·64+6 at two levels, conditional on the 70 read', () => {
    const [item, ...counters] = itemsOf({
      kind: 'addToAllTime',
      ...who,
      points: 60,
      read: { points: 70, reachedAt: '2026-03-09T00:00:00.000Z', shard: SHARD },
      meta: wide(1),
    });
    expect(item?.Update?.ConditionExpression).toBe('points = :fromPoints');
    expect(item?.Update?.ExpressionAttributeValues?.[':fromPoints']).toBe(70);
    // 70 = 1·64 + 6, 130 = 2·64 + 2: level 0 moves between nodes 1 and 2, level 1 (node 0) from digit 1 to 2.
    expect(counters.map((c) => [c.Update?.Key, c.Update?.ExpressionAttributeValues])).toEqual([
      ...[
        [{ level: 0, node: 1 }, { ':d6': -1 }],
        [
          { level: 1, node: 0 },
          { ':d1': -1, ':d2': 1 },
        ],
        [{ level: 0, node: 2 }, { ':d2': 1 }],
      ].map(([n, v]) => [counterKey({ kind: 'all', gameId: 'g1' }, n as never, SHARD), v]),
    ]);
  });

  it("raises the board's height to a score's top level above the height read, never lowers it", () => {
    const day = (height: number | null, points: number, read?: number) =>
      itemsOf({
        kind: 'addToDay',
        ...who,
        day: '2026-03-10',
        points,
        sessions: 0,
        read: read === undefined ? undefined : { points: read, reachedAt: AT, shard: SHARD },
        meta: wide(height),
        requires: { pointsAtMost: null, sessionsAtMost: null },
      }).filter((i) => i.Update?.Key?.sk === 'HEIGHT');
    const raise = (level: number) => ({
      Update: {
        TableName: playTable(),
        Key: metaKey({ kind: 'day', gameId: 'g1', day: '2026-03-10' }),
        // The day board's entry in the index of games with activity rides on its meta item.
        UpdateExpression: 'ADD levels :levels SET activeDay = :activeDay, activeGame = :activeGame',
        ExpressionAttributeValues: {
          ':levels': new Set([level]),
          ':activeDay': expect.stringMatching(/^2026-03-10#\d+$/),
          ':activeGame': 'g1',
        },
      },
    });
    // The first score on a board; 5,000 = 1·64² + … reaches level 2 over a height of 1; 4,095 < 64² stays at 1.
    expect(day(null, 10)).toEqual([raise(0)]);
    expect(day(1, 4_000, 1_000)).toEqual([raise(2)]);
    expect(day(1, 4_000, 95)).toEqual([]);
    expect(day(3, 4_000, 1_000)).toEqual([]);
  });

  it('leaves a day total without a bound conditional only on the points read, off the board at 0 points', () => {
    const items = itemsOf({
      kind: 'addToDay',
      ...who,
      day: '2026-03-10',
      points: 0,
      sessions: 1,
      meta: wide(null),
      requires: { pointsAtMost: null, sessionsAtMost: null },
    });
    expect(items).toHaveLength(1);
    expect(items[0]?.Update?.ConditionExpression).toBe(
      '(attribute_not_exists(points) OR points = :fromPoints)',
    );
    expect(items[0]?.Update?.UpdateExpression).not.toContain('reachedAt');
    expect(items[0]?.Update?.UpdateExpression).toContain('REMOVE rankDay, rankKey');
  });

  it('opens a session only where none exists, in the game sessions index and, when risky, the risky one', () => {
    const [item] = itemsOf({
      kind: 'openSession',
      ...session,
      day: '2026-03-10',
      risk: { score: 0.55, reasons: ['regular_timing'] },
      requires: { absent: true },
    });
    expect(item?.Update?.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(item?.Update?.UpdateExpression).not.toContain('REMOVE');
    expect(item?.Update?.ExpressionAttributeValues).toMatchObject({
      ':ixsessionGame': 'g1',
      ':ixsessionSort': `${AT}#s1`,
      ':ixriskScore': 0.55,
      ':ixriskyGame': 'g1',
    });
  });

  it("adds to a session only while it is active, the player's and under its cap; not risky leaves the index", () => {
    const [item] = itemsOf({
      kind: 'addToSession',
      ...session,
      risk: { score: 0.3, reasons: ['cap_hit'] },
      requires: { status: 'active', arcId: 'arc-1', pointsAtMost: 75 },
    });
    expect(item?.Update?.ConditionExpression).toBe(
      '#status = :active AND arcId = :a AND points <= :sessionLimit',
    );
    expect(item?.Update?.ExpressionAttributeValues).toMatchObject({
      ':active': 'active',
      ':a': 'arc-1',
      ':sessionLimit': 75,
    });
    expect(item?.Update?.UpdateExpression).toMatch(/ REMOVE riskyGame$/);
    expect(item?.Update?.UpdateExpression).not.toContain('sessionGame');
  });

  it('records an idempotency key only once', () => {
    expect(
      itemsOf({
        kind: 'recordIdempotency',
        gameId: 'g1',
        key: 'k1',
        accepted: 30,
        status: 'accepted',
        expiresAt: 1_773_230_400,
        requires: { absent: true },
      }),
    ).toEqual([
      {
        Put: {
          TableName: playTable(),
          Item: {
            pk: 'IDEM#g1#k1',
            sk: 'IDEM',
            accepted: 30,
            status: 'accepted',
            expiresAt: 1_773_230_400,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ]);
  });
});
