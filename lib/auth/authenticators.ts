import { bearerAuthenticator } from './bearer.js';
import { hmacAuthenticator } from './hmac.js';

/** Developer callers: HMAC signatures (SPEC §5). */
export const hmacOnly = { hmac: hmacAuthenticator };
/** Dashboard and developer callers: identity-provider tokens or HMAC signatures. */
export const bearerOrHmac = { bearer: bearerAuthenticator, hmac: hmacAuthenticator };
/** Token-launcher callers: identity-provider tokens. */
export const bearerOnly = { bearer: bearerAuthenticator };
