import { route } from '../../lib/http/route.js';
import { createHmacSignature, createHmacSignatureContract } from '../../lib/user/index.js';

export const handler = route(createHmacSignatureContract, async ({ body }) => ({
  data: createHmacSignature(body),
}));
