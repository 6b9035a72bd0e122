import { httpHandler } from '../../lib/http/handler.js';
import { apiReferenceJsonContract } from '../../lib/reference/contracts.js';
import { openApiDocument } from '../../lib/reference/document.js';

export const handler = httpHandler(apiReferenceJsonContract, async () => openApiDocument());
