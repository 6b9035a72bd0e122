import { contracts } from '../api.js';
import { buildOpenApi } from './openapi.js';

let cached: Record<string, unknown> | undefined;

/** The OpenAPI document of this deployment, built once per container. */
export const openApiDocument = (): Record<string, unknown> => {
  // A plain JSON object: it is served as is and compared with the committed openapi.yaml.
  cached ??= JSON.parse(JSON.stringify(buildOpenApi(contracts))) as Record<string, unknown>;
  return cached;
};
