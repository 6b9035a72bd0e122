import { createHash, randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { computeAllocations } from '../../lib/snapshots/allocation.js';
import {
  type ByteRange,
  HOLDERS_PAGE_SIZE,
  loadSnapshotIndex,
  readHoldersPage,
  readManifest,
  readProof,
  SnapshotCorruptError,
  type StoredObject,
  serializeSnapshot,
} from '../../lib/snapshots/layout.js';
import { buildDistributionFromSorted, leafHash, verifyProof } from '../../lib/snapshots/merkle.js';

// An in-memory object store with S3 semantics (inclusive ranges, undefined for a missing key) that counts reads.
function memoryStore(objects: StoredObject[]) {
  const map = new Map(objects.map((o) => [o.key, Buffer.from(o.body)]));
  const store = {
    map,
    reads: 0,
    bytesRead: 0,
    getObject: async (key: string, range?: ByteRange) => {
      store.reads++;
      const body = map.get(key);
      if (!body) return undefined;
      const slice = range ? body.subarray(range.start, range.end + 1) : body;
      store.bytesRead += slice.length;
      return slice;
    },
  };
  return store;
}

const addressOf = (i: number): string =>
  bs58.encode(createHash('sha256').update(`layout-holder-${i}`).digest());

function snapshotOf(n: number, pool = 1_000_000_000_000n) {
  const balances = new Map<string, bigint>();
  for (let i = 0; i < n; i++) balances.set(addressOf(i), BigInt(1 + ((i * 7919) % 1000)) * 1_000n);
  const allocation = computeAllocations(balances, pool);
  return { allocation, distribution: buildDistributionFromSorted(allocation.claimants, allocation.amounts) };
}

describe('serializeSnapshot / readProof / readHoldersPage', () => {
  for (const [n, bucketBits] of [
    [1, 10],
    [2, 10],
    [3, 1],
    [5, 1],
    [17, 2],
    [1000, 10],
    [2500, 4],
    [5000, 6],
  ] as const) {
    it(`${n} holders, 2^${bucketBits} per bucket: every holder's proof is read back in ≤ 2 reads and verifies`, async () => {
      const { allocation, distribution } = snapshotOf(n);
      const objects = serializeSnapshot(distribution, {
        prefix: `snapshots/MINT/v1`,
        version: 1,
        bucketBits,
      });
      expect(objects.map((o) => o.key)).toEqual([
        'snapshots/MINT/v1/holders.bin',
        'snapshots/MINT/v1/index.bin',
        'snapshots/MINT/v1/manifest.json',
      ]);
      const store = memoryStore(objects);
      const root = distribution.tree.root.toString('hex');
      let maxReads = 0;
      for (let i = 0; i < allocation.count; i++) {
        const owner = allocation.owners[i] as string;
        const before = store.reads;
        const record = await readProof('snapshots/MINT/v1/', owner, store.getObject);
        maxReads = Math.max(maxReads, store.reads - before);
        expect(record).toBeDefined();
        if (!record) continue;
        expect(record.index).toBe(i);
        expect(record.claimant).toBe(owner);
        expect(record.amount).toBe((allocation.amounts[i] as bigint).toString());
        expect(record.amountLocked).toBe('0');
        expect(record.root).toBe(root);
        expect(record.proof).toHaveLength(distribution.tree.depth);
        const leaf = leafHash(bs58.decode(owner), BigInt(record.amount));
        const proof = record.proof.map((h) => Buffer.from(h, 'hex'));
        expect(verifyProof(leaf, proof, distribution.tree.root)).toBe(true);
        expect(
          verifyProof(
            leafHash(bs58.decode(owner), BigInt(record.amount) + 1n),
            proof,
            distribution.tree.root,
          ),
        ).toBe(false);
      }
      expect(maxReads).toBeLessThanOrEqual(2);
    });
  }

  it('default bucket size over 3 buckets (last one partial): first, last and sampled holders of every bucket', async () => {
    const { allocation, distribution } = snapshotOf(2_300);
    const store = memoryStore(serializeSnapshot(distribution, { prefix: 'b', version: 1 }));
    const index = await loadSnapshotIndex('b', store.getObject);
    expect(index?.bucketCount).toBe(3);
    const picks = [0, 1, 1022, 1023, 1024, 1025, 2047, 2048, 2049, 2298, 2299];
    for (let i = 5; i < 2300; i += 97) picks.push(i);
    for (const i of picks) {
      const record = await readProof('b', allocation.owners[i] as string, store.getObject, index);
      expect(record?.index).toBe(i);
      const leaf = leafHash(
        allocation.claimants.subarray(i * 32, i * 32 + 32),
        allocation.amounts[i] as bigint,
      );
      const proof = (record?.proof ?? []).map((h) => Buffer.from(h, 'hex'));
      expect(verifyProof(leaf, proof, distribution.tree.root)).toBe(true);
    }
  });

  it('with a cached index a proof is a single ranged read of at most one bucket', async () => {
    const { allocation, distribution } = snapshotOf(3000);
    const store = memoryStore(
      serializeSnapshot(distribution, { prefix: 's/M/v2', version: 2, bucketBits: 8 }),
    );
    const index = await loadSnapshotIndex('s/M/v2', store.getObject);
    expect(index).toBeDefined();
    store.reads = 0;
    store.bytesRead = 0;
    const record = await readProof('s/M/v2', allocation.owners[1234] as string, store.getObject, index);
    expect(record?.index).toBe(1234);
    expect(store.reads).toBe(1);
    expect(store.bytesRead).toBe(256 * 48);
  });

  it('unknown claimants, malformed addresses and missing snapshots are not found', async () => {
    const { distribution } = snapshotOf(300);
    const store = memoryStore(serializeSnapshot(distribution, { prefix: 'p', version: 1, bucketBits: 4 }));
    expect(await readProof('p', addressOf(999_999), store.getObject)).toBeUndefined();
    expect(await readProof('p', bs58.encode(Buffer.alloc(32)), store.getObject)).toBeUndefined(); // below every fence
    expect(await readProof('p', bs58.encode(Buffer.alloc(32, 0xff)), store.getObject)).toBeUndefined();
    expect(await readProof('p', 'not base58 0OIl', store.getObject)).toBeUndefined();
    expect(await readProof('p', randomBytes(31), store.getObject)).toBeUndefined();
    expect(await readProof('other', addressOf(1), store.getObject)).toBeUndefined();
    expect(await readHoldersPage('other', 1, store.getObject)).toBeUndefined();
  });

  it('corrupted objects are detected, not served', async () => {
    const { allocation, distribution } = snapshotOf(600);
    const objects = serializeSnapshot(distribution, { prefix: 'c', version: 1, bucketBits: 5 });
    // An amount changed in holders.bin: the bucket no longer hashes to its stored root.
    const tampered = memoryStore(objects);
    const holders = tampered.map.get('c/holders.bin') as Buffer;
    holders.writeBigUInt64LE(holders.readBigUInt64LE(40 * 48 + 32) + 1n, 40 * 48 + 32);
    await expect(readProof('c', allocation.owners[41] as string, tampered.getObject)).rejects.toThrow(
      SnapshotCorruptError,
    );
    // A node changed in index.bin: the top levels no longer hash to the root.
    const badIndex = memoryStore(objects);
    const index = badIndex.map.get('c/index.bin') as Buffer;
    index[index.length - 40] = (index[index.length - 40] as number) ^ 1;
    await expect(readProof('c', allocation.owners[0] as string, badIndex.getObject)).rejects.toThrow(
      SnapshotCorruptError,
    );
  });

  it('holders pages of 1000 in leaf order, 2 reads each; manifest fields', async () => {
    const { allocation, distribution } = snapshotOf(2_345);
    const store = memoryStore(
      serializeSnapshot(distribution, {
        prefix: 'h/MINT/v7',
        version: 7,
        mint: 'MINT',
        slot: 123,
        createdAt: '2025-01-01T00:00:00.000Z',
      }),
    );
    const manifest = await readManifest('h/MINT/v7', store.getObject);
    expect(manifest).toMatchObject({
      root: distribution.tree.root.toString('hex'),
      holderCount: allocation.count,
      totalAllocation: allocation.totalAllocation.toString(),
      depth: distribution.tree.depth,
      version: 7,
      pageSize: HOLDERS_PAGE_SIZE,
      pageCount: 3,
      slot: 123,
      mint: 'MINT',
    });
    const seen: string[] = [];
    for (let page = 1; page <= 4; page++) {
      store.reads = 0;
      const result = await readHoldersPage('h/MINT/v7', page, store.getObject);
      expect(store.reads).toBeLessThanOrEqual(2);
      expect(result?.pageCount).toBe(3);
      expect(result?.holders.length).toBe([1000, 1000, 345, 0][page - 1]);
      for (const holder of result?.holders ?? []) {
        expect(holder.address).toBe(allocation.owners[holder.index]);
        expect(holder.amount).toBe((allocation.amounts[holder.index] as bigint).toString());
        seen.push(holder.address);
      }
    }
    expect(seen).toEqual(allocation.owners);
    await expect(readHoldersPage('h/MINT/v7', 0, store.getObject)).rejects.toThrow(RangeError);
  });

  it('serialisation is deterministic (same holder set ⇒ same bytes)', () => {
    const a = serializeSnapshot(snapshotOf(700).distribution, { prefix: 'd', version: 1 });
    const b = serializeSnapshot(snapshotOf(700).distribution, { prefix: 'd', version: 1 });
    expect(a.map((o) => o.body.toString('hex'))).toEqual(b.map((o) => o.body.toString('hex')));
  });
});
