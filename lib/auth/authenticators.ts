import { bearerAuthenticator } from './bearer.js';
import { hmacAuthenticator } from './hmac.js';

/** Developer callers: HMAC signatures with their API key and secret. */
export const hmacOnly = { hmac: hmacAuthenticator };
/** Dashboard and developer callers: identity-provider tokens or HMAC signatures. */
export const bearerOrHmac = { bearer: bearerAuthenticator, hmac: hmacAuthenticator };
/** Token-launcher callers: identity-provider tokens. */
export const bearerOnly = { bearer: bearerAuthenticator };
