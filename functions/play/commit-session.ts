import { sessionAuthenticator } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { commit, commitContract } from '../../lib/play/index.js';

export const handler = route(commitContract, async ({ auth, body }) => ({ data: await commit(auth, body) }), {
  session: sessionAuthenticator,
});
