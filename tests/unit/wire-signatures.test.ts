// The claim status reads a transaction's signatures without kit's transaction codecs (lib/chain/wire-signatures.ts):
// it must read what kit's own decoder reads, for random transactions with signed and empty slots.
import { randomBytes } from 'node:crypto';
import { getTransactionDecoder } from '@solana/kit';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { presentSignatures } from '../../lib/chain/wire-signatures.js';

/** A wire transaction: `slots` signatures (null: not signed yet), then a legacy message naming that many signers. */
const wireOf = (slots: Array<Buffer | null>) => {
  const keys = slots.map(() => randomBytes(32));
  const message = Buffer.concat([
    Buffer.from([slots.length, 0, 0, keys.length]),
    ...keys,
    randomBytes(32), // blockhash
    Buffer.from([0]), // no instructions
  ]);
  return Buffer.concat([
    Buffer.from([slots.length]),
    ...slots.map((s) => s ?? Buffer.alloc(64)),
    message,
  ]).toString('base64');
};

describe('presentSignatures', () => {
  it("reads what kit's transaction decoder reads, empty slots left out (every draw)", () => {
    for (let i = 0; i < 200; i++) {
      const slots = Array.from({ length: 1 + (i % 4) }, (_, j) =>
        (i + j) % 3 === 0 ? null : randomBytes(64),
      );
      const wire = wireOf(slots);
      const kit = Object.values(
        getTransactionDecoder().decode(Buffer.from(wire, 'base64')).signatures,
      ).flatMap((s) => (s ? [bs58.encode(Buffer.from(s))] : []));
      expect(presentSignatures(wire)).toEqual(kit);
      expect(kit).toHaveLength(slots.filter(Boolean).length);
    }
  });

  it('refuses a truncated transaction', () => {
    expect(() => presentSignatures(Buffer.from([2, ...randomBytes(70)]).toString('base64'))).toThrow(
      /malformed/,
    );
  });
});
