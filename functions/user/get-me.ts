import { bearerOrHmac } from '../../lib/auth/authenticators.js';
import { route } from '../../lib/http/route.js';
import { getMeContract } from '../../lib/user/contracts.js';
import { showMe } from '../../lib/user/profile.js';

export const handler = route(getMeContract, async ({ auth }) => ({ data: await showMe(auth) }), bearerOrHmac);
