// GET /play/dev/leaderboard/{gameId}: a game's daily or all-time board, and one player's rank and neighbours
// on it, through the board's rank index (ranks/reads.ts): no read grows with the board. Entries are labelled with
// the players' studio identifiers and display names (player-names.ts), in one more wave.
import type { AuthContext } from '../../core/auth.js';
import { requireOwnedGame } from '../../games/index.js';
import { resolveKnownIdentifiers } from '../../user/index.js';
import { utcDay } from '../keys.js';
import { labelEntries } from '../player-names.js';
import { playerRank } from './around.js';
import type { BoardRef } from './board.js';
import { pageOf } from './reads.js';

/** GET /play/dev/leaderboard/{gameId}. */
export const devLeaderboard = async (
  auth: AuthContext,
  gameId: string,
  query: {
    period: 'daily' | 'alltime';
    day?: string | undefined;
    limit: number;
    offset: number;
    player?: string | undefined;
  },
  now = new Date(),
) => {
  const game = await requireOwnedGame(auth, gameId);
  const day = query.period === 'daily' ? (query.day ?? utcDay(now)) : null;
  const board: BoardRef = day ? { kind: 'day', gameId: game.id, day } : { kind: 'all', gameId: game.id };
  const arcIdOf = async (player: string) => (await resolveKnownIdentifiers([player]))[player] ?? null;
  const [standings, arcId] = await Promise.all([
    pageOf(board, query.offset, query.limit),
    query.player ? arcIdOf(query.player) : null,
  ]);
  const ranked = standings.map((s, i) => ({ rank: query.offset + i + 1, arcId: s.arcId, points: s.points }));
  const mine = query.player && arcId ? await playerRank(board, arcId) : undefined;
  const [entries = [], neighbours = [], [self] = []] = await labelEntries(
    game.id,
    [ranked, mine?.neighbours ?? [], arcId ? [{ rank: 0, arcId, points: 0 }] : []],
    'studio',
  );
  if (!query.player) return { period: query.period, day, entries };
  const displayName = self?.displayName ?? null;
  return {
    period: query.period,
    day,
    entries,
    player: mine
      ? { playerId: query.player, arcId, displayName, rank: mine.rank, points: mine.points, neighbours }
      : { playerId: query.player, arcId, displayName, rank: null, points: 0, neighbours: [] },
  };
};
