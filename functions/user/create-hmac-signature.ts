import { route } from '../../lib/http/route.js';
import { createHmacSignatureContract } from '../../lib/user/contracts.js';
import { createHmacSignature } from '../../lib/user/hmac-helper.js';

export const handler = route(createHmacSignatureContract, async ({ body }) => ({
  data: createHmacSignature(body),
}));
