import * as z from 'zod/mini';
import { apiReferenceJsonContract, OPENAPI_JSON } from '../../lib/api/reference/index.js';
import { defineContract } from '../../lib/core/contract.js';
import { route } from '../../lib/http/route.js';

/**
 * The documented operation, served from the JSON text `npm run generate` writes with openapi.yaml: as a string
 * with a media type the shared stack sends it as is, where an object response is validated and serialized
 * again. The OpenAPI document still describes apiReferenceJsonContract (lib/api/catalogue.ts), a JSON object.
 */
const servedAsText = defineContract({
  ...apiReferenceJsonContract,
  response: z.string(),
  responseMediaType: 'application/json; charset=utf-8',
});

export const handler = route(servedAsText, async () => OPENAPI_JSON);
