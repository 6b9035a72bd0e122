// Every standing of a game's board of one UTC day, page by page, for the daily settlement (lib/settlement). The
// board already excludes invalidated sessions: invalidation takes their points out of the day totals.
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { playKeys } from './keys.js';
import { queryIndex } from './repository.js';

/** One player's counted points of a day, and when the score was reached (the tie-break). */
export interface DayStanding {
  arcId: string;
  points: number;
  reachedAt: string;
}

/** Opaque position in a board read by pages. */
export type StandingsCursor = Record<string, NativeAttributeValue>;

/**
 * One page (points descending, at most `limit`) of a game's board of a UTC day, players with points > 0 only;
 * `next` continues it. Ties inside the index are unordered: the caller orders after reading the whole board.
 */
export const dayStandings = async (
  gameId: string,
  day: string,
  page: { limit: number; start?: StandingsCursor | undefined },
): Promise<{ standings: DayStanding[]; next: StandingsCursor | undefined }> => {
  const result = await queryIndex({
    index: 'byDailyBoard',
    key: 'boardDay',
    value: playKeys.boardDay(gameId, day),
    range: { op: '>', value: 0 },
    forward: false,
    limit: page.limit,
    start: page.start,
  });
  return {
    standings: result.items.map((item) => ({
      arcId: String(item.arcId),
      points: Number(item.points ?? 0),
      reachedAt: String(item.reachedAt ?? item.updatedAt ?? ''),
    })),
    next: result.next,
  };
};
