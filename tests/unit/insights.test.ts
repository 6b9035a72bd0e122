// The insights' pure parts: what a player's first activity of a day counts (new, active, a cohort's return), what
// a save plan adds to the day figures and the marks it sets on the totals (written on condition, so that a player
// counts once a day and is first seen once), the merge of several players' figures into one item of a batch's
// transaction, and the range the endpoint reads.
import { describe, expect, it } from 'vitest';
import {
  activityAdds,
  insightsAddsOf,
  insightsInCopy,
  insightsWrite,
  sumAdds,
} from '../../lib/insights/counters.js';
import { insightsRange } from '../../lib/insights/service.js';
import { metaOf } from '../../lib/play/ranks/board.js';
import { groupTransaction } from '../../lib/play/saves/groups.js';
import { withInsights } from '../../lib/play/saves/insights.js';
import type { PlanWrite } from '../../lib/play/saves/model.js';
import { type DayTotal, type PlanInput, planPlayer } from '../../lib/play/saves/plan.js';
import { planItems } from '../../lib/play/saves/writes.js';

const GAME = 'g1';
const ARC = 'arc-1';
const NOW = new Date('2026-03-10T12:00:00.000Z');
const TODAY = '2026-03-10';
const EMPTY = metaOf(undefined);

const input = (
  state: { days?: Record<string, DayTotal>; firstDay?: string; points?: number } = {},
): PlanInput => ({
  game: { id: GAME, maxScorePerSession: null, maxSessionsPerDay: null, maxCumulativePointsPerDay: null },
  arcId: ARC,
  now: NOW,
  multiplierBps: 10_000,
  days: new Map(Object.entries(state.days ?? {})),
  ...(state.points === undefined
    ? {}
    : { allTime: { points: state.points, reachedAt: '2026-01-01T00:00:00.000Z', shard: 0 } }),
  firstDay: state.firstDay,
  boards: { days: new Map(), allTime: EMPTY },
  sessions: new Map(),
  idempotency: new Map(),
});

const save = (state: Parameters<typeof input>[0], ...points: number[]) => {
  const i = input(state);
  return withInsights(
    i,
    planPlayer(
      i,
      points.map((p, index) => ({ index, entry: { playerId: 'p1', points: p } })),
    ),
  );
};

const figures = (writes: PlanWrite[]) => writes.flatMap((w) => (w.kind === 'addToInsights' ? [w] : []));
const ofKind = <K extends PlanWrite['kind']>(writes: PlanWrite[], kind: K) =>
  writes.filter((w): w is Extract<PlanWrite, { kind: K }> => w.kind === kind);

describe('activityAdds', () => {
  it('counts a new player, an active one, and a return of its cohort 1, 7 and 30 days after', () => {
    expect(activityAdds(TODAY, undefined)).toEqual({ activePlayers: 1, newPlayers: 1 });
    expect(activityAdds(TODAY, TODAY)).toEqual({ activePlayers: 1 });
    expect(activityAdds(TODAY, '2026-03-09')).toEqual({ activePlayers: 1, back1: 1 });
    expect(activityAdds(TODAY, '2026-03-03')).toEqual({ activePlayers: 1, back7: 1 });
    expect(activityAdds(TODAY, '2026-02-08')).toEqual({ activePlayers: 1, back30: 1 });
    expect(activityAdds(TODAY, '2026-03-08')).toEqual({ activePlayers: 1 });
    expect(activityAdds('2026-03-01', '2026-01-30')).toEqual({ activePlayers: 1, back30: 1 });
  });
});

describe('a save plan with its figures', () => {
  it('first sees a new player: the day marked, the first day set, a new and active player with the points', () => {
    const plan = save({}, 30, 12);
    expect(ofKind(plan.writes, 'addToDay')).toMatchObject([{ day: TODAY, markPlayed: true, points: 42 }]);
    expect(ofKind(plan.writes, 'addToAllTime')).toMatchObject([{ points: 42, firstDay: TODAY }]);
    expect(figures(plan.writes)).toEqual([
      {
        kind: 'addToInsights',
        gameId: GAME,
        day: TODAY,
        adds: { points: 42, backendSessions: 1, activePlayers: 1, newPlayers: 1 },
      },
    ]);
  });

  it('counts only the points of a player the day already counted, and marks nothing', () => {
    const plan = save(
      { days: { [TODAY]: { points: 5, sessions: 1, played: true } }, firstDay: '2026-03-01', points: 9 },
      7,
    );
    expect(ofKind(plan.writes, 'addToDay')[0]?.markPlayed).toBeUndefined();
    expect(ofKind(plan.writes, 'addToAllTime')[0]?.firstDay).toBeUndefined();
    // Its default session of the day is new (none read): one more backend session, no player.
    expect(figures(plan.writes).map((w) => w.adds)).toEqual([{ points: 7, backendSessions: 1 }]);
  });

  it("counts a known player's first save of the day as a return of its cohort, without setting its first day", () => {
    const plan = save({ firstDay: '2026-03-03', points: 100 }, 5);
    expect(ofKind(plan.writes, 'addToAllTime')[0]?.firstDay).toBeUndefined();
    expect(figures(plan.writes).map((w) => w.adds)).toEqual([
      { points: 5, backendSessions: 1, activePlayers: 1, back7: 1 },
    ]);
  });

  it('writes the first day alone when the first save adds no points (its session opened, its entry capped to 0)', () => {
    const i: PlanInput = { ...input(), game: { ...input().game, maxCumulativePointsPerDay: 0 } };
    const plan = withInsights(i, planPlayer(i, [{ index: 0, entry: { playerId: 'p1', points: 5 } }]));
    expect(ofKind(plan.writes, 'addToAllTime')).toMatchObject([{ points: 0, firstDay: TODAY }]);
    expect(figures(plan.writes).map((w) => w.adds)).toEqual([
      { points: 0, backendSessions: 1, activePlayers: 1, newPlayers: 1 },
    ]);
  });

  it('writes the marks on condition: the day not marked yet, the first day not set yet', () => {
    const items = planItems(save({}, 10));
    const updates = items.flatMap((t) => (t.Update ? [t.Update] : []));
    const day = updates.find(
      (u) => (u.Key as { sk: string }).sk === `DAY#${TODAY}` && !String(u.Key?.pk).startsWith('INSIGHTS#'),
    );
    const all = updates.find((u) => (u.Key as { sk: string }).sk === 'ALL');
    expect(day?.ConditionExpression).toContain('attribute_not_exists(played)');
    expect(day?.UpdateExpression).toContain('played = :played');
    expect(all?.ConditionExpression).toContain('attribute_not_exists(firstDay)');
    expect(all?.ExpressionAttributeValues?.[':firstDay']).toBe(TODAY);
    const figure = updates.find((u) => String(u.Key?.pk).startsWith('INSIGHTS#'));
    expect(figure?.ConditionExpression).toBeUndefined();
    expect(figure?.Key).toEqual({ pk: `INSIGHTS#${GAME}#0`, sk: `DAY#${TODAY}` });
  });

  it('leaves a plan that writes no day total alone', () => {
    const plan = planPlayer(input(), []);
    expect(withInsights(input(), plan)).toBe(plan);
  });
});

describe('the figures of a batch transaction', () => {
  it("merges several players' figures of one day into one item, in the transaction's copy, the adds summed", () => {
    const a = { items: planItems(save({}, 10)) };
    const b = { items: planItems(save({ firstDay: '2026-03-09', points: 3 }, 4)) };
    const tx = groupTransaction([a, b], 5);
    const figureItems = tx.items.filter((t) => String(t.Update?.Key?.pk).startsWith('INSIGHTS#'));
    expect(figureItems).toHaveLength(1);
    expect(figureItems[0]?.Update?.Key).toEqual({ pk: `INSIGHTS#${GAME}#5`, sk: `DAY#${TODAY}` });
    expect(insightsAddsOf(figureItems[0] ?? {})?.adds).toEqual({
      activePlayers: 2,
      newPlayers: 1,
      back1: 1,
      backendSessions: 2,
      points: 14,
    });
    expect(tx.owners[tx.items.indexOf(figureItems[0] ?? {})]).toEqual([a, b]);
  });

  it('moves an item to another copy and leaves other items alone', () => {
    const item = insightsWrite(GAME, TODAY, { points: 3 }, 1);
    expect(item && insightsInCopy(item, 6).Update?.Key).toEqual({
      pk: `INSIGHTS#${GAME}#6`,
      sk: `DAY#${TODAY}`,
    });
    const other = { ConditionCheck: { TableName: 't', Key: { pk: 'x', sk: 'y' }, ConditionExpression: 'a' } };
    expect(insightsInCopy(other, 6)).toBe(other);
    expect(insightsWrite(GAME, TODAY, { points: 0 })).toBeUndefined();
    expect(sumAdds({ points: 1, back7: 1 }, { points: -3, newPlayers: 1 })).toEqual({
      points: -2,
      back7: 1,
      newPlayers: 1,
    });
  });
});

describe('the range read', () => {
  it('defaults to the 30 days ending today, or ending `to`; `from` alone runs to today', () => {
    expect(insightsRange({}, TODAY)).toMatchObject({ from: '2026-02-09', to: TODAY });
    expect(insightsRange({}, TODAY).days).toHaveLength(30);
    expect(insightsRange({ to: '2026-01-31' }, TODAY)).toMatchObject({
      from: '2026-01-02',
      to: '2026-01-31',
    });
    expect(insightsRange({ from: '2026-03-01' }, TODAY).days).toHaveLength(10);
    expect(insightsRange({ from: TODAY, to: TODAY }, TODAY).days).toEqual([TODAY]);
  });

  it('refuses a reversed range and one longer than 400 days', () => {
    expect(() => insightsRange({ from: '2026-03-02', to: '2026-03-01' }, TODAY)).toThrow(/Invalid range/);
    expect(insightsRange({ from: '2025-02-04', to: TODAY }, TODAY).days).toHaveLength(400);
    expect(() => insightsRange({ from: '2025-02-03', to: TODAY }, TODAY)).toThrow(/Invalid range/);
  });
});
