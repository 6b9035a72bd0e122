// The server side of the play protocol the client SDK speaks (docs/play-protocol.md): opening a session
// (open.ts), flushes (flush.ts), the commit (commit.ts), and here its reads: the session's state for a resync and
// the player's points.
import type { AuthContext } from '../../core/auth.js';
import { errors } from '../../core/errors.js';
import { playKeys, utcDay } from '../keys.js';
import { getItem, getItems, itemKey } from '../repository.js';
import { noteIrregularity } from './repository.js';
import { sessionKey } from './session.js';

export { commit } from './commit.js';
export { type FlushInput, flush } from './flush.js';
export { openSession, SESSION_TTL_MS } from './open.js';

/** GET /play/session-state: the server's view of the chain, for a client resuming after a crash. */
export const sessionState = async (auth: AuthContext) => {
  const key = sessionKey(auth);
  const session = await getItem(key);
  if (!session) throw errors.notFound('Session');
  await noteIrregularity(key, 'resyncs');
  return {
    sessionId: String(session.sessionId),
    gameId: String(session.gameId),
    status: String(session.status) as 'active' | 'committed' | 'invalidated',
    seq: Number(session.seq ?? 0),
    head: String(session.head),
    pendingPoints: Number(session.pendingPoints ?? 0),
    committedPoints: Number(session.points ?? 0),
    claimedTotal: Number(session.claimedTotal ?? 0),
    expiresAt: String(session.expiresAt),
  };
};

/** GET /play/get-points: the session player's points in the session's game, today and all time. */
export const playerPoints = async (auth: AuthContext, now = new Date()) => {
  const { gameId } = auth;
  if (!gameId) throw errors.unauthorized('A session token is required');
  const day = utcDay(now);
  const items = await getItems([
    playKeys.day(gameId, auth.userId, day),
    playKeys.allTime(gameId, auth.userId),
  ]);
  return {
    gameId,
    arcId: auth.userId,
    day,
    today: Number(items.get(itemKey(playKeys.day(gameId, auth.userId, day)))?.points ?? 0),
    allTime: Number(items.get(itemKey(playKeys.allTime(gameId, auth.userId)))?.points ?? 0),
  };
};
