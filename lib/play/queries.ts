// The developer's reads of play: players' points here, the leaderboard (ranks/leaderboard.ts) and the session
// listings (session-lists.ts).
import type { AuthContext } from '../core/auth.js';
import { requireOwnedGame } from '../games/index.js';
import { parseIdentifiers, resolveKnownIdentifiers } from '../user/index.js';
import { playKeys, utcDay } from './keys.js';
import { getItems, itemKey } from './repository.js';

export { devLeaderboard } from './ranks/leaderboard.js';
export { devSessions, riskySessions, sessionView } from './session-lists.js';

/** GET /play/dev/points: today's and all-time points of up to 100 players (two batched reads). */
export const devPoints = async (
  auth: AuthContext,
  query: { gameId: string; playerIds: string[] },
  now = new Date(),
) => {
  const game = await requireOwnedGame(auth, query.gameId);
  parseIdentifiers(query.playerIds, (index) => `playerIds.${index}`);
  const mapping = await resolveKnownIdentifiers(query.playerIds);
  const day = utcDay(now);
  const known = [...new Set(Object.values(mapping).filter((v): v is string => v !== null))];
  const items = await getItems(
    known.flatMap((arcId) => [playKeys.day(game.id, arcId, day), playKeys.allTime(game.id, arcId)]),
  );
  const pointsOf = (key: { pk: string; sk: string }) => Number(items.get(itemKey(key))?.points ?? 0);
  return {
    day,
    playerIdToArcId: mapping,
    points: query.playerIds.map((playerId) => {
      const arcId = mapping[playerId] ?? null;
      return {
        playerId,
        arcId,
        today: arcId ? pointsOf(playKeys.day(game.id, arcId, day)) : 0,
        allTime: arcId ? pointsOf(playKeys.allTime(game.id, arcId)) : 0,
      };
    }),
  };
};
