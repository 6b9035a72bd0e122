// Public surface of the auth domain: code outside lib/auth imports it from here only.
export { bearerOnly, bearerOrHmac, hmacOnly } from './authenticators.js';
export { bearerAuthenticator } from './bearer.js';
export { playerOrGame, studioOrGame } from './game-scoped.js';
export { grantAuthenticator } from './grant.js';
export { playerAuthenticator, sessionAuthenticator } from './player.js';
