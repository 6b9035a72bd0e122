// A game's board of one UTC day as other domains read it (the multiplier quotes): its size, its top and one
// player's points. The paged COUNT costs time linear in the board (issue: leaderboards at scale).
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { playKeys } from './keys.js';
import { countRange, getItem, queryIndex } from './repository.js';

type Item = Record<string, NativeAttributeValue>;

/** Players with points on a game's board of one UTC day (COUNT queries over the daily-board index). */
export const countDayBoard = (gameId: string, day: string): Promise<number> =>
  countRange('byDailyBoard', 'boardDay', playKeys.boardDay(gameId, day), { op: '>', value: 0 });

interface Standing {
  arcId: string;
  points: number;
  reachedAt: string;
}

/** Leaderboard order (as GET /play/dev/leaderboard): points desc, then who reached it first, then Arc ID. */
const byRank = (a: Standing, b: Standing) =>
  b.points - a.points || a.reachedAt.localeCompare(b.reachedAt) || a.arcId.localeCompare(b.arcId);

/** The top `wanted` standings of a daily board, reading on through a tie that straddles the end. */
export const topOfDay = async (gameId: string, day: string, wanted: number): Promise<Standing[]> => {
  const read: Standing[] = [];
  let start: Item | undefined;
  do {
    const page = await queryIndex({
      index: 'byDailyBoard',
      key: 'boardDay',
      value: playKeys.boardDay(gameId, day),
      range: { op: '>', value: 0 },
      forward: false,
      limit: Math.min(100, wanted + 1),
      start,
    });
    read.push(
      ...page.items.map((item) => ({
        arcId: String(item.arcId),
        points: Number(item.points ?? 0),
        reachedAt: String(item.reachedAt ?? item.updatedAt ?? ''),
      })),
    );
    start = page.next;
    const last = read[wanted - 1];
    const after = read[read.length - 1];
    if (last && after && after.points < last.points) break;
  } while (start);
  return read.sort(byRank);
};

/** A player's counted points on a game's board of one UTC day (0 when none). */
export const dayPoints = async (gameId: string, arcId: string, day: string): Promise<number> =>
  Number((await getItem(playKeys.day(gameId, arcId, day)))?.points ?? 0);

/** The day board as the multiplier quotes read it. */
export const dayBoard = { count: countDayBoard, top: topOfDay, pointsOf: dayPoints };
