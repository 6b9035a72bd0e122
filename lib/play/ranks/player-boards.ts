// The boards as a game's client reads them, and players' display names: GET /play/leaderboard/{gameId}[/me],
// PUT /play/players/{gameId}/me/name (the player) and PUT /play/dev/players/{gameId}/name (the studio). The
// reads are the developer leaderboard's (ranks/reads.ts), over the board a `BoardRef` names, with the entries
// labelled (player-names.ts): one more wave of two batched reads, whatever the board's size.
import { type AuthContext, isGameScoped } from '../../core/auth.js';
import { errors } from '../../core/errors.js';
import { requireGame, requireOwnedGame } from '../../games/index.js';
import { resolveKnownIdentifiers } from '../../user/index.js';
import { moderateDisplayName } from '../display-name.js';
import { utcDay } from '../keys.js';
import { labelEntries, type RankedEntry, setDisplayName } from '../player-names.js';
import { playerRank } from './around.js';
import type { BoardRef } from './board.js';
import { pageOf } from './reads.js';

export type Period = 'daily' | 'alltime';

/** The board a period names, and its day (null for all-time). */
export const boardFor = (gameId: string, period: Period, day: string | undefined, now: Date) => {
  const d = period === 'daily' ? (day ?? utcDay(now)) : null;
  const board: BoardRef = d ? { kind: 'day', gameId, day: d } : { kind: 'all', gameId };
  return { board, day: d };
};

/**
 * A player's access to a game's boards: a session token only for its own game (403 for another: a game's
 * client never reads or writes under another game's session), an identity token for any game that exists.
 * The game read of an identity-token caller runs beside `work`, so it costs no round trip.
 */
const asPlayerOf = async <T>(auth: AuthContext, gameId: string, work: () => Promise<T>): Promise<T> => {
  // A game-scoped token (session or grant) is for its own game, checked before (lib/http/handler.ts).
  if (isGameScoped(auth)) return work();
  if (auth.scheme !== 'bearer') throw errors.forbidden('A player token is required');
  const [, result] = await Promise.all([requireGame(gameId), work()]);
  return result;
};

/** GET /play/leaderboard/{gameId}: a page of the board, labelled. */
export const playerLeaderboard = (
  auth: AuthContext,
  gameId: string,
  query: { period: Period; day?: string | undefined; limit: number; offset: number },
  now = new Date(),
) =>
  asPlayerOf(auth, gameId, async () => {
    const { board, day } = boardFor(gameId, query.period, query.day, now);
    const standings = await pageOf(board, query.offset, query.limit);
    const ranked = standings.map((s, i) => ({
      rank: query.offset + i + 1,
      arcId: s.arcId,
      points: s.points,
    }));
    const [entries = []] = await labelEntries(gameId, [ranked], 'player');
    return { period: query.period, day, entries };
  });

/** GET /play/leaderboard/{gameId}/me: the caller's rank and neighbours, labelled. */
export const myRank = (
  auth: AuthContext,
  gameId: string,
  query: { period: Period; day?: string | undefined },
  now = new Date(),
) =>
  asPlayerOf(auth, gameId, async () => {
    const { board, day } = boardFor(gameId, query.period, query.day, now);
    const ranked = await playerRank(board, auth.userId);
    const me: RankedEntry = { rank: ranked?.rank ?? 0, arcId: auth.userId, points: ranked?.points ?? 0 };
    const [[self] = [], neighbours = []] = await labelEntries(
      gameId,
      [[me], ranked?.neighbours ?? []],
      'player',
    );
    return {
      period: query.period,
      day,
      player: {
        rank: ranked ? me.rank : null,
        arcId: auth.userId,
        playerId: self?.playerId ?? null,
        displayName: self?.displayName ?? null,
        points: me.points,
        neighbours,
      },
    };
  });

/** A bad name is a 400 before anything is read. */
const checkName = (name: string | null) => {
  if (name !== null) moderateDisplayName(name);
};

/** PUT /play/players/{gameId}/me/name: the caller names itself in a game. */
export const setMyName = (auth: AuthContext, gameId: string, body: { displayName: string | null }) => {
  checkName(body.displayName);
  return asPlayerOf(auth, gameId, async () => ({
    arcId: auth.userId,
    ...(await setDisplayName(gameId, auth.userId, { displayName: body.displayName, setBy: 'player' })),
  }));
};

/** PUT /play/dev/players/{gameId}/name: the studio names a player it knows (404 for one never seen). */
export const setPlayerName = async (
  auth: AuthContext,
  gameId: string,
  body: { playerId: string; displayName: string | null; locked?: boolean | undefined },
) => {
  checkName(body.displayName);
  const [game, mapping] = await Promise.all([
    requireOwnedGame(auth, gameId),
    resolveKnownIdentifiers([body.playerId]),
  ]);
  const arcId = mapping[body.playerId];
  if (!arcId) throw errors.notFound('Player');
  return {
    arcId,
    ...(await setDisplayName(game.id, arcId, {
      displayName: body.displayName,
      setBy: 'studio',
      locked: body.locked,
    })),
  };
};
