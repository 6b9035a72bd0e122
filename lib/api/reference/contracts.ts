import * as z from 'zod/mini';
import { type Contract, defineContract } from '../../core/contract.js';

export const apiReferenceContract = defineContract({
  operationId: 'apiReference',
  method: 'GET',
  path: '/api-reference',
  tags: ['Reference'],
  summary: 'Interactive API reference (HTML)',
  description: 'Swagger UI over the OpenAPI document, with every asset inlined so it works with no internet.',
  auth: [],
  response: z.string(),
  responseMediaType: 'text/html; charset=utf-8',
  errors: [],
});

export const apiReferenceJsonContract = defineContract({
  operationId: 'apiReferenceJson',
  method: 'GET',
  path: '/api-reference-json',
  tags: ['Reference'],
  summary: 'OpenAPI 3.1 description of this API (JSON)',
  auth: [],
  response: z.record(z.string(), z.unknown()),
  errors: [],
});

/** Not part of the public API: the catch-all route that answers unknown paths in the standard error format. */
export const notFoundContract = defineContract({
  operationId: 'notFound',
  method: 'GET',
  path: '/{proxy+}',
  tags: [],
  summary: 'Unknown route',
  auth: [],
  response: z.never(),
  errors: ['NOT_FOUND'],
});

/** The reference's own operations in the API (the catch-all is not one). */
export const contracts: readonly Contract[] = [apiReferenceContract, apiReferenceJsonContract];
