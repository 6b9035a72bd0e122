// What a save plan adds to the game's figures (lib/insights), pure: each day total the plan writes counts its
// points and the backend sessions it opens; the player's first counted write of a day marks the total `played`
// (conditional on no other write having marked it) and counts an active player, a new one when the player's
// all-time total has no first day yet (the plan sets it: the earliest day marked), and a return of the player's
// cohort on days 1, 7 and 30 after it. The marks ride on the totals the plan writes anyway; the counters are one
// item per day, merged with the other players' of the transaction (saves/groups.ts).
import { activityAdds, type InsightsAdds, sumAdds } from '../../insights/index.js';
import type { AddToInsights, PlanWrite, PlayerPlan } from './model.js';
import type { PlanInput } from './plan.js';

/** The plan with its figures: the day totals marked, the first day set, and one insights write per day. */
export const withInsights = (input: PlanInput, plan: PlayerPlan): PlayerPlan => {
  const dayWrites = plan.writes.flatMap((w) => (w.kind === 'addToDay' ? [w] : []));
  if (dayWrites.length === 0) return plan;
  const marked = dayWrites.filter((w) => input.days.get(w.day)?.played !== true).map((w) => w.day);
  const firstDay = input.firstDay ?? [...marked].sort()[0];
  const setsFirstDay = input.firstDay === undefined && firstDay !== undefined;
  const insights = dayWrites.map((w): AddToInsights => {
    const counts: InsightsAdds = { points: w.points, backendSessions: w.sessions };
    const seen = setsFirstDay && w.day === firstDay ? undefined : firstDay;
    return {
      kind: 'addToInsights',
      gameId: w.gameId,
      day: w.day,
      adds: marked.includes(w.day) ? sumAdds(counts, activityAdds(w.day, seen)) : counts,
    };
  });
  const writes: PlanWrite[] = plan.writes.map((w) => {
    if (w.kind === 'addToDay' && marked.includes(w.day)) return { ...w, markPlayed: true };
    if (w.kind === 'addToAllTime' && setsFirstDay) return { ...w, firstDay };
    return w;
  });
  // A player first seen by a write that adds no points (a session opened, its entries clipped to nothing): the
  // all-time total is written for its first day alone.
  if (setsFirstDay && !writes.some((w) => w.kind === 'addToAllTime')) {
    const first = dayWrites[0];
    if (first)
      writes.push({
        kind: 'addToAllTime',
        gameId: first.gameId,
        arcId: first.arcId,
        points: 0,
        read: input.allTime,
        meta: input.boards.allTime,
        firstDay,
      });
  }
  return { ...plan, writes: [...writes, ...insights] };
};
