import { bearerOrHmac } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { getMe, getMeContract } from '../../lib/user/index.js';

export const handler = route(getMeContract, async ({ auth }) => ({ data: await getMe(auth) }), bearerOrHmac);
