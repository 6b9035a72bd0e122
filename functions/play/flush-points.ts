import { sessionAuthenticator } from '../../lib/auth/player.js';
import { route } from '../../lib/http/route.js';
import { flush } from '../../lib/play/sdk.js';
import { flushContract } from '../../lib/play/sdk-contracts.js';

export const handler = route(flushContract, async ({ auth, body }) => ({ data: await flush(auth, body) }), {
  session: sessionAuthenticator,
});
