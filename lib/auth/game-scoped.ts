import { bearerAuthenticator } from './bearer.js';
import { grantAuthenticator } from './grant.js';
import { hmacAuthenticator } from './hmac.js';
import { sessionAuthenticator } from './player.js';

/** Player routes: the player's identity token, or a game-scoped token (session, grant) within its scope. */
export const playerOrGame = {
  bearer: bearerAuthenticator,
  session: sessionAuthenticator,
  grant: grantAuthenticator,
};
/** Routes a studio (HMAC or bearer) and a player's game (session, grant) both read. */
export const studioOrGame = {
  hmac: hmacAuthenticator,
  bearer: bearerAuthenticator,
  session: sessionAuthenticator,
  grant: grantAuthenticator,
};
