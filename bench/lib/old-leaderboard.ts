// The leaderboard reads as they were before the rank index (lib/play/leaderboard.ts at b49ef13), kept for
// bench/leaderboard.ts to run beside the new ones: the top by a points-sorted index (byDailyBoard: boardDay,
// points), a rank by a paged COUNT of every entry above and a read of every tied entry.
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { countRange, queryIndex } from '../../lib/play/index.js';

type Item = Record<string, NativeAttributeValue>;

interface Standing {
  arcId: string;
  points: number;
  reachedAt: string;
}

const standing = (item: Item): Standing => ({
  arcId: String(item.arcId),
  points: Number(item.points ?? 0),
  reachedAt: String(item.reachedAt ?? ''),
});

const byRank = (a: Standing, b: Standing) =>
  b.points - a.points || a.reachedAt.localeCompare(b.reachedAt) || a.arcId.localeCompare(b.arcId);

const board = (value: string) => ({ index: 'byDailyBoard', key: 'boardDay', value });

/** The top `wanted` standings, reading on through a tie that straddles the end (pages of 100). */
export const oldTop = async (value: string, wanted: number): Promise<Standing[]> => {
  const read: Standing[] = [];
  let start: Item | undefined;
  do {
    const page = await queryIndex({ ...board(value), forward: false, limit: 100, start });
    read.push(...page.items.map(standing));
    start = page.next;
    const last = read[wanted - 1];
    const after = read[read.length - 1];
    if (last && after && after.points < last.points) break;
  } while (start);
  return read.filter((s) => s.points > 0).sort(byRank);
};

/** A player's rank: COUNT of every entry above, every tied entry read, two neighbours each side. */
export const oldAround = async (value: string, arcId: string, points: number) => {
  const b = board(value);
  const [above, tied, nearAbove, nearBelow] = await Promise.all([
    countRange(b.index, b.key, b.value, { op: '>', value: points }),
    queryIndex({ ...b, range: { op: '=', value: points }, forward: false }),
    queryIndex({ ...b, range: { op: '>', value: points }, forward: true, limit: 2 }),
    queryIndex({ ...b, range: { op: '<', value: points }, forward: false, limit: 2 }),
  ]);
  const ties = tied.items.map(standing).sort(byRank);
  const rank = above + ties.findIndex((s) => s.arcId === arcId) + 1;
  return { rank, neighbours: [...nearAbove.items, ...nearBelow.items].length };
};
