// Public surface of the auth domain: code outside lib/auth imports it from here only.
export { bearerOnly, bearerOrHmac, hmacOnly } from './authenticators.js';
export { bearerAuthenticator } from './bearer.js';
export { playerAuthenticator, sessionAuthenticator } from './player.js';
