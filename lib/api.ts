import type { Contract } from './http/contract.js';
import { apiReferenceContract, apiReferenceJsonContract } from './reference/contracts.js';
import { createHmacSignatureContract } from './user/contracts.js';

/** Every operation of the public API. serverless.yml has exactly one function per entry (checked by a test). */
export const contracts: readonly Contract[] = [
  apiReferenceContract,
  apiReferenceJsonContract,
  createHmacSignatureContract,
];
