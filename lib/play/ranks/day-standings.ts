// Every standing of a game's board of one UTC day, page by page, for the daily settlement (lib/rewards/settlement). The
// board already excludes invalidated sessions: invalidation takes their points out of the day totals.
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { queryRankRange } from '../repository.js';
import { type BoardRef, boardIndex, boardPartition, tieStart } from './board.js';
import { readMeta } from './reads.js';

/** One player's counted points of a day, and when the score was reached (the tie-break). */
export interface DayStanding {
  arcId: string;
  points: number;
  reachedAt: string;
}

/** Opaque position in a board read by pages: the index shard being read and where in it. */
export type StandingsCursor = Record<string, NativeAttributeValue>;

/**
 * One page (at most `limit`) of a game's board of a UTC day, players with points > 0 only; `next` continues it.
 * The board's index is sharded (ranks/board.ts): a page reads one shard after another in leaderboard order
 * within each shard, so the pages are not in rank order across shards; the caller orders the whole board.
 */
export const dayStandings = async (
  gameId: string,
  day: string,
  page: { limit: number; start?: StandingsCursor | undefined },
): Promise<{ standings: DayStanding[]; next: StandingsCursor | undefined }> => {
  const board: BoardRef = { kind: 'day', gameId, day };
  const { index, attribute } = boardIndex(board);
  // Its shards: every one the board ever had (a past day's board no longer widens).
  const shards = (await readMeta(board)).recorded;
  const standings: DayStanding[] = [];
  let shard = Number(page.start?.shard ?? 0);
  let start = page.start?.key as Record<string, NativeAttributeValue> | undefined;
  // Every entry on the board has points > 0 (a total at 0 is off the index), so the whole range is read.
  while (shard < shards && standings.length < page.limit) {
    const result = await queryRankRange({
      index,
      key: attribute,
      value: boardPartition(board, shard),
      range: { from: tieStart(Number.MAX_SAFE_INTEGER) },
      forward: true,
      limit: page.limit - standings.length,
      start,
    });
    standings.push(
      ...result.items.map((item) => ({
        arcId: String(item.arcId),
        points: Number(item.points ?? 0),
        reachedAt: String(item.reachedAt ?? ''),
      })),
    );
    start = result.next;
    if (!start) shard += 1;
  }
  return {
    standings,
    next: shard < shards ? { shard, ...(start ? { key: start } : {}) } : undefined,
  };
};
