import { bearerOnly } from '../../lib/auth/index.js';
import { route } from '../../lib/http/route.js';
import { updateMe, updateMeContract } from '../../lib/user/index.js';

export const handler = route(
  updateMeContract,
  async ({ auth, body }) => ({ data: await updateMe(auth, body) }),
  bearerOnly,
);
