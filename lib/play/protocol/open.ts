// Opening a client SDK session (docs/play-protocol.md §1): GET /play/session-token.
import { randomBytes, randomUUID } from 'node:crypto';
import type { AuthContext } from '../../core/auth.js';
import { AppError } from '../../core/errors.js';
import { derivedUuid } from '../../core/ids.js';
import { GAME_JWT_SESSION_SCOPES, PLATFORM_SESSION_SCOPES } from '../../core/scopes.js';
import { requireGame } from '../../games/index.js';
import { playKeys, utcDay } from '../keys.js';
import { getItem } from '../repository.js';
import { writeOpening } from './open-repository.js';
import { closed, requireActive } from './session.js';
import { issueSessionToken } from './token.js';

/** How long a play session (and its token) lives. */
export const SESSION_TTL_MS = 2 * 60 * 60 * 1000;

/**
 * What the session's token may do: a grant's scopes (the game's page connected with the player's consent); a
 * game's own JWT plays but never spends; the player's own identity token (the platform's pages) everything.
 */
const sessionScopes = (auth: AuthContext) =>
  auth.scopes ?? (auth.gameId ? GAME_JWT_SESSION_SCOPES : PLATFORM_SESSION_SCOPES);

/** The session token's claims for a session of this caller. */
const claimsOf = (auth: AuthContext, sessionId: string, gameId: string) => ({
  arcId: auth.userId,
  sessionId,
  gameId,
  scopes: sessionScopes(auth),
  ...(auth.grantId ? { grantId: auth.grantId } : {}),
});

/** A session opened earlier with the same idempotency key: its token again, while it is still open. */
const reopen = async (auth: AuthContext, gameId: string, sessionId: string, now: Date) => {
  const session = await getItem(playKeys.session(gameId, sessionId));
  if (!session || session.arcId !== auth.userId)
    throw closed('The session opened with this idempotency key has ended');
  const open = requireActive(session, now);
  const expiresAt = new Date(String(open.expiresAt));
  const sessionToken = await issueSessionToken(claimsOf(auth, sessionId, gameId), expiresAt);
  return { sessionToken, sessionId, expiresAt: expiresAt.toISOString(), chainSeed: String(open.chainSeed) };
};

/**
 * GET /play/session-token: open an SDK session (counted against maxSessionsPerDay atomically) and hand out its
 * token and chain seed. With an idempotency key, the session id derives from (player, game, key): a retry finds
 * the session the first request opened (its creation fails on the id) and gets its token again, uncounted.
 */
export const openSession = async (
  auth: AuthContext,
  gameId: string,
  now = new Date(),
  idempotencyKey?: string,
) => {
  const game = await requireGame(gameId);
  const sessionId = idempotencyKey
    ? derivedUuid('arcadia', 'session', game.id, auth.userId, idempotencyKey)
    : randomUUID();
  const chainSeed = randomBytes(32).toString('hex');
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  const at = now.toISOString();
  const day = utcDay(now);
  const sessionsCap = game.maxSessionsPerDay;
  const failed = await writeOpening({
    gameId: game.id,
    sessionId,
    arcId: auth.userId,
    day,
    chainSeed,
    at,
    expiresAt: expiresAt.toISOString(),
    sessionsCap,
    caps: game,
  });
  if (failed) {
    // The session's id exists: a retried key. Otherwise the day's session counter is at its cap.
    if (idempotencyKey && failed.session === 'ConditionalCheckFailed')
      return reopen(auth, game.id, sessionId, now);
    throw new AppError(
      'SESSION_LIMIT_REACHED',
      `This player has used the game's ${sessionsCap} sessions for today (UTC)`,
    );
  }
  const sessionToken = await issueSessionToken(claimsOf(auth, sessionId, game.id), expiresAt);
  return { sessionToken, sessionId, expiresAt: expiresAt.toISOString(), chainSeed };
};
