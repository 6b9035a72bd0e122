import { httpHandler } from '../../lib/http/handler.js';
import { apiReferenceContract } from '../../lib/reference/contracts.js';
import { referencePage } from '../../lib/reference/page.js';

export const handler = httpHandler(apiReferenceContract, async () => referencePage('/api-reference-json'));
