import { contracts } from '../catalogue.js';
import { buildOpenApi } from './openapi.js';

let cached: Record<string, unknown> | undefined;

/**
 * The OpenAPI document of this deployment, built once per process by `npm run generate` and the tests: the
 * function serves the JSON text generated from it (openapi-json.generated.ts), never builds it.
 */
export const openApiDocument = (): Record<string, unknown> => {
  // A plain JSON object: it is serialized as served and compared with the committed openapi.yaml.
  cached ??= JSON.parse(JSON.stringify(buildOpenApi(contracts))) as Record<string, unknown>;
  return cached;
};
