import { sessionAuthenticator } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { commit, commitContract } from '../../lib/play/index.js';
import { runningPeriods } from '../../lib/tournaments/index.js';

// The committed points count into the game's running tournament periods the player is entered in.
export const handler = route(
  commitContract,
  async ({ auth, body }) => ({ data: await commit(auth, body, new Date(), runningPeriods) }),
  { session: sessionAuthenticator },
);
