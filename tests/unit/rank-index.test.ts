// The score tree's arithmetic against brute force, no stack: counters built by the moves of random totals
// (joining, moving, leaving) answer `count(> v)` like a scan of the totals, and rank keys sort like byRank.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  byRank,
  type Counters,
  countAbove,
  countAt,
  counterMoves,
  pathAt,
  rankKey,
  type TreeNode,
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
