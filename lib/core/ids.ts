import { createHash } from 'node:crypto';

/**
 * A UUID derived from its parts (sha256 of `parts` joined by ':', shaped as a version-8 UUID): the id of what an
 * idempotency key creates, so a retry finds the first request's item by key alone and keys of different owners
 * or namespaces never meet.
 */
export const derivedUuid = (...parts: string[]): string => {
  const h = createHash('sha256').update(parts.join(':')).digest();
  h[6] = ((h[6] as number) & 0x0f) | 0x80;
  h[8] = ((h[8] as number) & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};
