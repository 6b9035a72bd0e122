// isOnCurve (lib/chain/curve.ts), the owner check that keeps PDAs out of the airdrop, against kit's
// isOffCurveAddress: random keys (about half of them are not points), real keypairs (all on the curve) and
// program-derived addresses (never on it).
import { randomBytes } from 'node:crypto';
import {
  address,
  generateKeyPairSigner,
  getAddressDecoder,
  getProgramDerivedAddress,
  isOffCurveAddress,
} from '@solana/kit';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { isOnCurve } from '../../lib/chain/index.js';

describe('isOnCurve', () => {
  it('agrees with kit on 3 000 random keys', () => {
    const decoder = getAddressDecoder();
    let off = 0;
    for (let i = 0; i < 3000; i++) {
      const key = randomBytes(32);
      const expected = !isOffCurveAddress(decoder.decode(key));
      expect(isOnCurve(key)).toBe(expected);
      if (!expected) off++;
    }
    expect(off).toBeGreaterThan(1200);
    expect(off).toBeLessThan(1800);
  });

  it('accepts keypairs and refuses program-derived addresses, at any offset', async () => {
    for (let i = 0; i < 20; i++) {
      const signer = await generateKeyPairSigner();
      const [pda] = await getProgramDerivedAddress({
        programAddress: address('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL'),
        seeds: [randomBytes(32)],
      });
      const both = Buffer.concat([Buffer.alloc(7), bs58.decode(signer.address), bs58.decode(pda)]);
      expect(isOnCurve(both, 7)).toBe(true);
      expect(isOnCurve(both, 39)).toBe(false);
    }
  });
});
