import { route } from '../../lib/http/route.js';
import { apiReferenceJsonContract } from '../../lib/reference/contracts.js';
import { openApiDocument } from '../../lib/reference/document.js';

export const handler = route(apiReferenceJsonContract, async () => openApiDocument());
