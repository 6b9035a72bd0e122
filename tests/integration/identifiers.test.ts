import { randomBytes, randomUUID } from 'node:crypto';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { localDirectory } from '../../lib/user/directory.js';
import { getUser } from '../../lib/user/repository.js';
import { resolveIdentifiers } from '../../lib/user/resolver.js';
import { createDeveloper } from '../helpers/users.js';

const deps = { directory: localDirectory };
const newWallet = () => bs58.encode(randomBytes(32));

describe('resolveIdentifiers', () => {
  it('creates exactly one user for 20 concurrent resolutions of one new wallet', async () => {
    const wallet = `sol:${newWallet()}`;
    const results = await Promise.all(Array.from({ length: 20 }, () => resolveIdentifiers([wallet], deps)));
    const ids = new Set(results.map((r) => r[wallet]));
    expect(ids.size).toBe(1);
    const user = await getUser([...ids][0] ?? '');
    expect(user?.identifiers).toContain(wallet);
  });

  it('maps every identifier form, with short and long prefixes reaching the same user', async () => {
    const dev = await createDeveloper();
    const wallet = newWallet();
    const eth = `0x${randomBytes(20).toString('hex')}`;
    const handle = `p${randomBytes(4).toString('hex')}`;
    const email = `${randomUUID().slice(0, 8)}@example.com`;
    const raws = [
      dev.arcId,
      dev.subject,
      `sol:${wallet}`,
      `solana:${wallet}`,
      `eth:${eth}`,
      `ethereum:${eth.toUpperCase().replace('0X', '0x')}`,
      `x:${handle}`,
      `twitter:@${handle.toUpperCase()}`,
      `email:${email}`,
    ];
    const mapping = await resolveIdentifiers(raws, deps);
    expect(Object.keys(mapping).sort()).toEqual([...raws].sort());
    expect(mapping[dev.arcId]).toBe(dev.arcId);
    expect(mapping[dev.subject]).toBe(dev.arcId);
    expect(mapping[`sol:${wallet}`]).toBe(mapping[`solana:${wallet}`]);
    expect(mapping[`eth:${eth}`]).toBe(mapping[`ethereum:${eth.toUpperCase().replace('0X', '0x')}`]);
    expect(mapping[`x:${handle}`]).toBe(mapping[`twitter:@${handle.toUpperCase()}`]);
    expect(new Set(Object.values(mapping)).size).toBe(5);
    // A second resolution reads, it does not create.
    expect(await resolveIdentifiers(raws, deps)).toEqual(mapping);
  });

  it('rejects an unknown Arc ID, an invalid did and a malformed identifier with INVALID_IDENTIFIER naming it', async () => {
    const missing = randomUUID();
    await expect(resolveIdentifiers([missing], deps)).rejects.toMatchObject({
      code: 'INVALID_IDENTIFIER',
      message: expect.stringContaining(missing),
    });
    await expect(resolveIdentifiers(['did:local:Not Valid'], deps)).rejects.toMatchObject({
      code: 'INVALID_IDENTIFIER',
    });
    await expect(resolveIdentifiers(['sol:0OIl'], deps)).rejects.toMatchObject({
      code: 'INVALID_IDENTIFIER',
      message: expect.stringContaining('sol:0OIl'),
    });
  });
});
