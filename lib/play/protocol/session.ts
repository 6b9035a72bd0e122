// What every call of the client SDK's session protocol checks of its session, and the irregularities it notes
// on it (they feed the risk score).
import type { AuthContext } from '../../core/auth.js';
import { AppError, errors } from '../../core/errors.js';
import { playKeys } from '../keys.js';

/** The session a session token names. */
export const sessionKey = (auth: AuthContext) => {
  if (!auth.gameId || !auth.sessionId) throw errors.unauthorized('A session token is required');
  return playKeys.session(auth.gameId, auth.sessionId);
};

/** The error of a call on a session that is no longer open. */
export const closed = (message: string) => new AppError('SESSION_CLOSED', message);

/** A session item as read. */
export type Session = Record<string, unknown>;

/** The session, if it is still open: active and unexpired. */
export const requireActive = (session: Session | undefined, now: Date): Session => {
  if (!session) throw errors.notFound('Session');
  if (session.status !== 'active') throw closed(`The session is ${String(session.status)}`);
  if (Date.parse(String(session.expiresAt)) <= now.getTime()) throw closed('The session has expired');
  return session;
};
