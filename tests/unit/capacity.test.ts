// The rules the capacity counter computes units with when DynamoDB reports none (lib/adapters/capacity.ts): item
// sizes and units as AWS publishes them.
import { describe, expect, it } from 'vitest';
import { itemSize, readUnits, writeUnits } from '../../lib/adapters/capacity.js';

describe('item sizes', () => {
  it('counts attribute names and values: strings in UTF-8 bytes, numbers by significant digits', () => {
    expect(itemSize({ pk: 'abc' })).toBe(5);
    expect(itemSize({ é: 'é' })).toBe(4);
    // 12345: 5 significant digits → 3 + 1 bytes; 1000: 1 significant digit → 1 + 1.
    expect(itemSize({ n: 12345 })).toBe(1 + 4);
    expect(itemSize({ n: 1000 })).toBe(1 + 2);
    expect(itemSize({ b: true, z: null })).toBe(4);
  });

  it('lists and maps: 3 bytes, 1 per element, and the elements', () => {
    expect(itemSize({ l: ['ab', 'c'] })).toBe(1 + 3 + (1 + 2) + (1 + 1));
    expect(itemSize({ m: { k: 'v' } })).toBe(1 + 3 + (1 + 1 + 1));
    expect(itemSize({ s: new Set(['ab', 'cd']) })).toBe(1 + 4);
  });
});

describe('units', () => {
  it('writes: 1 per KB rounded up, twice in a transaction', () => {
    expect(writeUnits(10)).toBe(1);
    expect(writeUnits(1024)).toBe(1);
    expect(writeUnits(1025)).toBe(2);
    expect(writeUnits(2500, true)).toBe(6);
  });

  it('reads: 1 per 4 KB rounded up, half eventually consistent, twice in a transaction', () => {
    expect(readUnits(100)).toBe(0.5);
    expect(readUnits(6000)).toBe(1);
    expect(readUnits(6000, 'strong')).toBe(2);
    expect(readUnits(100, 'transactional')).toBe(2);
  });
});
