import { httpHandler } from '../../lib/http/handler.js';
import { createHmacSignatureContract } from '../../lib/user/contracts.js';
import { createHmacSignature } from '../../lib/user/hmac-helper.js';

export const handler = httpHandler(createHmacSignatureContract, async ({ body }) => ({
  data: createHmacSignature(body),
}));
