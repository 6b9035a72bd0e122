// The score tree's arithmetic against brute force, no stack: counters built by the moves of random totals
// (joining, moving, leaving) answer `count(> v)` like a scan of the totals, the tie trees count ties by minute
// like a scan, and rank keys sort like byRank.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type BoardRef,
  byRank,
  type Counters,
  countAbove,
  countAt,
  counterMoves,
  countInMinute,
  countLater,
  pathAt,
  rankKey,
  type Standing,
  type TreeNode,
  tieMinute,
  tieMinuteStart,
  tieMoves,
  tieNodes,
  topLevel,
} from '../../lib/play/rank-index.js';

const score = fc.oneof(
  fc.integer({ min: 0, max: 300 }),
  fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
);

/** Counters of a tree after moving each total from its old to its new score. */
const build = (moves: Array<[number, number]>) => {
  const tree = new Map<string, Map<number, number>>();
  for (const [from, to] of moves)
    for (const m of counterMoves(from, to)) {
      const node = tree.get(`${m.level}#${m.node}`) ?? new Map<number, number>();
      for (const [d, delta] of m.digits) node.set(d, (node.get(d) ?? 0) + delta);
      tree.set(`${m.level}#${m.node}`, node);
    }
  return (n: TreeNode): Counters => tree.get(`${n.level}#${n.node}`) ?? new Map();
};

describe('score tree', () => {
  it('counts the totals above and at any score exactly (every level, or up to the height), after joins, moves and departures', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(score, score), { maxLength: 60 }),
        fc.array(score, { maxLength: 10 }),
        (pairs, probes) => {
          // Each total joins at `a`, then moves to `b` (0: leaves the board).
          const counters = build([...pairs.map(([a]) => [0, a] as [number, number]), ...pairs]);
          const finals = pairs.map(([, b]) => b).filter((b) => b > 0);
          // The height as the writes keep it: the highest top level any score reached (moves never lower it).
          const reached = pairs.flat().filter((p) => p > 0);
          const height = reached.length > 0 ? Math.max(...reached.map(topLevel)) : 0;
          for (const v of [
            0,
            ...probes,
            ...finals,
            ...finals.map((f) => f - 1),
            ...finals.map((f) => f + 64),
          ]) {
            if (v < 0) continue;
            const above = finals.filter((f) => f > v).length;
            expect(countAbove(v, counters)).toBe(above);
            // A rank reads up to the height, or the score's own top level if it is above (not on the board).
            expect(countAbove(v, counters, Math.max(height, v > 0 ? topLevel(v) : 0))).toBe(above);
            expect(countAt(v, counters)).toBe(v > 0 ? finals.filter((f) => f === v).length : 0);
          }
        },
      ),
    );
  });

  it('gives each score its highest non-zero base-64 digit as its top level', () => {
    expect([1, 63, 64, 4_095, 4_096, 262_143, 262_144, 1_000_000].map(topLevel)).toEqual([
      0, 0, 1, 1, 2, 2, 3, 3,
    ]);
    expect(topLevel(Number.MAX_SAFE_INTEGER)).toBe(8);
  });

  it('writes no counter for digit 0, and one item for a move inside 64 points', () => {
    expect(counterMoves(0, 64)).toEqual([{ level: 1, node: 0, digits: new Map([[1, 1]]) }]);
    expect(counterMoves(65, 70)).toEqual([
      {
        level: 0,
        node: 1,
        digits: new Map([
          [1, -1],
          [6, 1],
        ]),
      },
    ]);
    expect(counterMoves(70, 70)).toEqual([]);
    expect(pathAt(2 ** 53, 8)).toEqual({ node: 0, digit: 32 });
  });
});

describe('tie tree', () => {
  const day: BoardRef = { kind: 'day', gameId: 'g', day: '2026-03-10' };
  const all: BoardRef = { kind: 'all', gameId: 'g' };
  const dayStart = Date.parse('2026-03-10T00:00:00.000Z');
  // Reach instants from before the day to past the day tree's 4,096 minutes (clamped), a few minutes apart or not.
  const instant = fc
    .oneof(fc.integer({ min: -3, max: 40 }), fc.integer({ min: -100, max: 6_000 }))
    .chain((minute) =>
      fc
        .integer({ min: 0, max: 59_999 })
        .map((ms) => new Date(dayStart + minute * 60_000 + ms).toISOString()),
    );
  const standing = fc.record({
    arcId: fc.constant('a'),
    points: fc.integer({ min: 0, max: 3 }),
    reachedAt: instant,
  });

  it.each([
    ['day', day],
    ['all-time', all],
  ])(
    'counts the ties of a later minute and of one minute exactly on the %s board, after joins, moves and departures',
    (_, board) => {
      fc.assert(
        fc.property(fc.array(fc.tuple(standing, standing), { maxLength: 60 }), instant, (pairs, probe) => {
          // Each standing joins as `a`, then moves to `b` (0 points: leaves the board).
          const trees = new Map<string, Map<number, number>>();
          const move = (from: Standing | undefined, to: Standing | undefined) => {
            for (const m of tieMoves(board, from, to)) {
              const id = `${m.points}#${m.level}#${m.node}`;
              const node = trees.get(id) ?? new Map<number, number>();
              for (const [d, delta] of m.digits) node.set(d, (node.get(d) ?? 0) + delta);
              trees.set(id, node);
            }
          };
          for (const [a] of pairs) move(undefined, a);
          for (const [a, b] of pairs) move(a, b);
          const finals = pairs.map(([, b]) => b).filter((b) => b.points > 0);
          const latest = Math.max(0, ...finals.map((f) => tieMinute(board, f.reachedAt)));
          for (const points of [1, 2, 3])
            for (const at of [probe, ...finals.map((f) => f.reachedAt)]) {
              const minute = tieMinute(board, at);
              const tree = (n: TreeNode): Counters =>
                trees.get(`${points}#${n.level}#${n.node}`) ?? new Map();
              const tied = finals
                .filter((f) => f.points === points)
                .map((f) => tieMinute(board, f.reachedAt));
              // Any bound at or after the latest minute reached reads enough levels.
              for (const bound of [latest, latest + 1, 1e9]) {
                const nodes = tieNodes(board, minute, bound);
                expect(countLater(minute, nodes, tree)).toBe(tied.filter((m) => m > minute).length);
              }
              expect(countInMinute(minute, tree)).toBe(tied.filter((m) => m === minute).length);
            }
        }),
      );
    },
  );

  it('keeps the order of reach instants, clamped to the tree', () => {
    fc.assert(
      fc.property(instant, instant, (a, b) => {
        if (a <= b) expect(tieMinute(day, a)).toBeLessThanOrEqual(tieMinute(day, b));
        if (a <= b) expect(tieMinute(all, a)).toBeLessThanOrEqual(tieMinute(all, b));
      }),
    );
    expect(tieMinute(day, '2026-03-09T23:59:59.999Z')).toBe(0);
    expect(tieMinute(day, '2026-03-10T01:05:30.000Z')).toBe(65);
    expect(tieMinute(day, '2026-03-13T00:00:00.000Z')).toBe(4_095);
    expect(tieMinute(all, '2026-01-01T00:01:00.000Z')).toBe(1);
    expect(tieMinute(all, '')).toBe(0);
    expect(tieMinuteStart(day, 65)).toBe('2026-03-10T01:05:00.000Z');
  });

  it('reads the levels where a later minute up to the bound can differ, level 0 always', () => {
    expect(tieNodes(day, 70, 100)).toEqual([{ level: 0, node: 1 }]);
    expect(tieNodes(day, 70, 130)).toEqual([
      { level: 0, node: 1 },
      { level: 1, node: 0 },
    ]);
    expect(tieNodes(all, 5, 4_096).map((n) => n.level)).toEqual([0, 1, 2]);
    // A standing reached after the bound (a writer's clock ahead) still reads its own minute.
    expect(tieNodes(day, 70, 10)).toEqual([{ level: 0, node: 1 }]);
  });
});

describe('rank key', () => {
  it('sorts like the leaderboard: points desc, then who reached them first, then Arc ID', () => {
    const standing = fc.record({
      arcId: fc.uuid(),
      points: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
      reachedAt: fc
        .date({ min: new Date(0), max: new Date('9999-12-31'), noInvalidDate: true })
        .map((d) => d.toISOString()),
    });
    fc.assert(
      fc.property(standing, standing, (a, b) => {
        const keys = Math.sign(rankKey(a) < rankKey(b) ? -1 : rankKey(a) > rankKey(b) ? 1 : 0);
        expect(keys).toBe(Math.sign(byRank(a, b)));
      }),
    );
  });
});
