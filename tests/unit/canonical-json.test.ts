// lib/core/canonical-json.ts writes RFC 8785 canonical JSON as the `canonicalize` package does (the identity
// provider's official client signs with that package; payout statements are hashed with the same bytes).
import { createRequire } from 'node:module';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../lib/core/canonical-json.js';

// The package the official client depends on (CommonJS: its function is the module itself).
const canonicalize = createRequire(import.meta.url)('canonicalize') as (value: unknown) => string | undefined;

describe('canonicalJson', () => {
  it('sorts keys by UTF-16 code units and drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: [true, null, 'x'], é: undefined, A: { z: '1', y: 2 } })).toBe(
      '{"A":{"y":2,"z":"1"},"a":[true,null,"x"],"b":1}',
    );
  });

  it("writes what the official client's canonicalize writes, for any JSON value (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(canonicalize(value));
      }),
      { seed: 8785, numRuns: 500 },
    );
  });
});
