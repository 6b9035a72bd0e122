import { sessionAuthenticator } from '../../lib/auth/player.js';
import { route } from '../../lib/http/route.js';
import { sessionState } from '../../lib/play/sdk.js';
import { sessionStateContract } from '../../lib/play/sdk-contracts.js';

export const handler = route(sessionStateContract, async ({ auth }) => ({ data: await sessionState(auth) }), {
  session: sessionAuthenticator,
});
