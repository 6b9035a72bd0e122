// The API reference: the OpenAPI document built from every contract, and the interactive page.
export { apiReferenceContract, apiReferenceJsonContract, notFoundContract } from './contracts.js';
export { openApiDocument } from './document.js';
export { OPENAPI_JSON } from './openapi-json.generated.js';
export { type ReferencePage, referencePage } from './page.js';
