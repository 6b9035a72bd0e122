import { sessionAuthenticator } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { sessionState, sessionStateContract } from '../../lib/play/index.js';

export const handler = route(sessionStateContract, async ({ auth }) => ({ data: await sessionState(auth) }), {
  session: sessionAuthenticator,
});
