import { sessionAuthenticator } from '../../lib/auth/player.js';
import { route } from '../../lib/http/route.js';
import { commit } from '../../lib/play/sdk.js';
import { commitContract } from '../../lib/play/sdk-contracts.js';

export const handler = route(commitContract, async ({ auth, body }) => ({ data: await commit(auth, body) }), {
  session: sessionAuthenticator,
});
