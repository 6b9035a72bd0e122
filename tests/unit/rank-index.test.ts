// The score tree's arithmetic against brute force, no stack: counters built by the moves of random totals
// (joining, moving, leaving) answer `count(> v)` like a scan of the totals, also while the board widens (the
// writes of `boardMove` replayed in memory), and rank keys sort like byRank.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type BoardRef,
  byRank,
  type Counters,
  countAbove,
  countAt,
  counterCopies,
  counterKey,
  counterMoves,
  metaKey,
  metaOf,
  pathAt,
  rankKey,
  shardOf,
  type TreeNode,
  topLevel,
  WIDTHS,
  widthFor,
} from '../../lib/play/ranks/board.js';
import { boardMove, counterDeltas, metaAddsOf } from '../../lib/play/ranks/writes.js';
import type { TransactItem } from '../../lib/play/repository.js';

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

describe('board width', () => {
  it('reads at least MIN_COPIES counter copies, and every copy of a wider board', () => {
    expect([1, 2, 8, 16, 22].map((recorded) => counterCopies({ recorded }))).toEqual([8, 8, 8, 16, 22]);
  });

  it('grows with the players on the board: 1 up to 5,000, doubling, 22 from 80,000', () => {
    expect([0, 1, 5_000, 5_001, 10_000, 10_001, 40_000, 80_000, 80_001, 1e9].map(widthFor)).toEqual([
      1, 1, 1, 2, 2, 4, 8, 16, 22, 22,
    ]);
  });

  // A board's writes replayed in memory: each move's counter items summed per copy, its meta adds applied.
  const simulate = (board: BoardRef) => {
    const counters = new Map<string, number>();
    const meta = {
      levels: new Set<number>(),
      widths: new Set<number>(),
      dayWidths: new Set<number>(),
      players: 0,
    };
    const count = (item: TransactItem) => {
      const deltas = counterDeltas(item);
      for (const [d, v] of deltas?.digits ?? []) {
        const id = `${deltas?.key.pk}#${d}`;
        counters.set(id, (counters.get(id) ?? 0) + v);
      }
    };
    const record = (item: TransactItem) => {
      const adds = metaAddsOf(item);
      if (adds?.key.pk !== metaKey(board).pk) return;
      for (const l of adds.adds.levels ?? []) meta.levels.add(l);
      for (const w of adds.adds.widths ?? []) meta.widths.add(w);
      meta.players += adds.adds.players ?? 0;
    };
    const apply = (items: TransactItem[]) => {
      for (const item of items) {
        count(item);
        record(item);
      }
    };
    const item = () => ({ levels: meta.levels, widths: meta.widths, players: meta.players });
    return { counters, meta, apply, item };
  };

  it('keeps every entry and counter in a shard the readers read, and the counters equal the totals, as the board widens', () => {
    const board: BoardRef = { kind: 'day', gameId: 'g', day: '2026-03-10' };
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 5_000 })), {
          minLength: 1,
          maxLength: 120,
        }),
        fc.integer({ min: 0, max: 3 }),
        (moves, widen) => {
          const sim = simulate(board);
          const totals = new Map<string, { points: number; shard?: number | undefined }>();
          moves.forEach(([player, points], i) => {
            const arcId = `arc-${player}`;
            // The board widens part way through (as if its estimate crossed a threshold elsewhere).
            if (i === Math.floor(moves.length / 2) && widen > 0) sim.meta.widths.add(WIDTHS[widen] as number);
            const was = totals.get(arcId);
            const move = boardMove(
              board,
              was && was.points > 0
                ? { arcId, points: was.points, reachedAt: 'x', shard: was.shard }
                : undefined,
              { arcId, points, reachedAt: 'x' },
              metaOf(sim.item()),
            );
            sim.apply([...move.counters, ...move.meta]);
            const partition = move.values[':ixrankDay'];
            const shard = typeof partition === 'string' ? Number(partition.split('#').pop()) : undefined;
            totals.set(arcId, { points, shard: points > 0 ? shard : undefined });
          });
          const { recorded, height } = metaOf(sim.item());
          const finals = [...totals.values()].filter((t) => t.points > 0);
          for (const t of finals) expect(t.shard).toBeLessThan(recorded);
          // Summed over the copies the readers read, the counters answer count(> v) like a scan.
          const read = (n: TreeNode): Counters => {
            const sums = new Map<number, number>();
            for (let c = 0; c < counterCopies({ recorded }); c++)
              for (let d = 1; d < 64; d++) {
                const v = sim.counters.get(`${counterKey(board, n, c).pk}#${d}`) ?? 0;
                if (v !== 0) sums.set(d, (sums.get(d) ?? 0) + v);
              }
            return sums;
          };
          for (const v of [0, 1, 63, 64, 200, 4_095, 4_096])
            expect(countAbove(v, read, height ?? 0)).toBe(finals.filter((t) => t.points > v).length);
          // No counter is left in a copy the readers do not read.
          for (const [key, value] of sim.counters)
            if (value !== 0) expect(Number(key.split('#')[5])).toBeLessThan(counterCopies({ recorded }));
        },
      ),
    );
  });

  it('estimates the players who entered from one in `width` of them, and records the next width when they need it', () => {
    const board: BoardRef = { kind: 'day', gameId: 'g', day: '2026-03-10' };
    const sim = simulate(board);
    sim.meta.players = 4_990;
    const entered = Array.from({ length: 200 }, (_, i) => `arc-${i}`);
    for (const arcId of entered) {
      const move = boardMove(board, undefined, { arcId, points: 10, reachedAt: 'x' }, metaOf(sim.item()));
      sim.apply(move.meta);
      // The all-time board learns the width its day boards reached.
      const allTime = move.meta
        .map(metaAddsOf)
        .find((m) => m?.key.pk === metaKey({ kind: 'all', gameId: 'g' }).pk);
      if (allTime) expect(allTime.adds.dayWidths).toEqual([2]);
    }
    // Past 5,000 the board is 2 wide (10,000 more would take it to 4).
    expect(metaOf(sim.item()).recorded).toBe(2);
    // 200 entered: the estimate moved by about that many (sampled one in the width).
    expect(sim.meta.players - 4_990).toBeGreaterThan(100);
    expect(sim.meta.players - 4_990).toBeLessThan(300);
  });

  it("starts a day board as wide as its game's day boards grew, and records that width on the day board", () => {
    const board: BoardRef = { kind: 'day', gameId: 'g', day: '2026-03-11' };
    const meta = metaOf(undefined, { dayWidths: new Set([8]) });
    expect(meta).toMatchObject({ width: 8, recorded: 1, height: null });
    const move = boardMove(board, undefined, { arcId: 'arc-1', points: 5, reachedAt: 'x' }, meta);
    const adds = move.meta.map(metaAddsOf).find((m) => m?.key.pk === metaKey(board).pk);
    expect(adds?.adds.widths).toContain(8);
    expect(adds?.adds.levels).toEqual([0]);
    expect(move.values[':ixrankDay']).toBe(`g#2026-03-11#${shardOf('arc-1', 8)}`);
  });

  it('keeps a move down in its shard without reading the board', () => {
    const board: BoardRef = { kind: 'all', gameId: 'g' };
    const move = boardMove(
      board,
      { arcId: 'a', points: 70, reachedAt: 'x', shard: 5 },
      { arcId: 'a', points: 3, reachedAt: 'x' },
    );
    expect(move.values[':ixrankAll']).toBe('g#5');
    expect(move.meta).toEqual([]);
    // 70 = 1·64 + 6 leaves level 1 and node 1 of level 0, 3 joins node 0: all in copy 5.
    expect(move.counters.map((c) => counterDeltas(c)?.key.pk)).toEqual([
      'RANK#g#0#1#5',
      'RANK#g#1#0#5',
      'RANK#g#0#0#5',
    ]);
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
