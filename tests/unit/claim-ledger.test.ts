// Settling a pending claim against the chain (lib/snapshots/claim-ledger.ts): landed only when its receipt holds
// data, expired only when the chain had passed its lifetime before the receipt was read unused.
import { describe, expect, it } from 'vitest';
import type { AccountInfo } from '../../lib/chain/index.js';
import { type LedgerDeps, readLedger, resolveClaim } from '../../lib/snapshots/claim-ledger.js';
import type { ClaimRecord } from '../../lib/snapshots/repository.js';

const claim = (over: Partial<ClaimRecord> = {}): ClaimRecord => ({
  coinMint: 'coin',
  wallet: 'wallet',
  claimNumber: 0,
  attempt: 1,
  status: 'pending',
  amount: '100',
  allocated: '100',
  airdropAllocation: '100',
  emissionAllocation: '0',
  claimedBefore: '0',
  index: 0,
  merkleRoot: null,
  snapshotVersion: 1,
  receiptAddress: 'receipt',
  transaction: 'tx',
  blockhash: 'hash',
  lastValidBlockHeight: 1000,
  signature: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  claimedAt: null,
  ...over,
});

const account = (bytes: number): AccountInfo => ({
  owner: '11111111111111111111111111111111',
  lamports: 2_000_000n,
  executable: false,
  data: Buffer.alloc(bytes),
});

/** A chain whose reads are logged in order; `onHeight` runs right after the height is read. */
const ledger = (
  opts: { height: number; receipt: AccountInfo | null; onHeight?: () => void },
  records: ClaimRecord[],
) => {
  const reads: string[] = [];
  const state = { receipt: opts.receipt };
  const deps: LedgerDeps = {
    chain: {
      getBlockHeight: async () => {
        reads.push('height');
        opts.onHeight?.();
        return opts.height;
      },
      getAccountInfo: async () => {
        reads.push('receipt');
        return state.receipt;
      },
      findSignatures: async () => [],
      getLandedTransaction: async () => null,
    },
    listClaimRecords: async () => records,
    settleClaim: async (c, change) => ({ ...c, status: change.status, claimedAt: change.at }),
    now: () => new Date('2026-01-01T00:01:00.000Z'),
  };
  return { deps, reads, state };
};

describe('resolveClaim', () => {
  it('lands a claim whose receipt holds data, even past its lifetime', async () => {
    const { deps } = ledger({ height: 5000, receipt: account(1) }, []);
    expect((await resolveClaim(claim(), deps)).status).toBe('landed');
  });

  it('a funded 0-byte receipt (a stranger’s transfer) is no landed claim: pending, then expired', async () => {
    expect((await resolveClaim(claim(), ledger({ height: 999, receipt: account(0) }, []).deps)).status).toBe(
      'pending',
    );
    expect((await resolveClaim(claim(), ledger({ height: 1001, receipt: account(0) }, []).deps)).status).toBe(
      'expired',
    );
  });

  it('reads the height before the receipt: a claim landing between the two reads is seen landed', async () => {
    const world = ledger({ height: 1001, receipt: null }, []);
    const racing = ledger(
      {
        height: 1001,
        receipt: null,
        onHeight: () => {
          racing.state.receipt = account(1);
        },
      },
      [],
    );
    expect((await resolveClaim(claim(), racing.deps)).status).toBe('landed');
    expect(racing.reads).toEqual(['height', 'receipt']);
    expect((await resolveClaim(claim(), world.deps)).status).toBe('expired');
  });

  it('leaves landed and expired claims as they are', async () => {
    const { deps, reads } = ledger({ height: 0, receipt: null }, []);
    for (const status of ['landed', 'expired'] as const)
      expect((await resolveClaim(claim({ status }), deps)).status).toBe(status);
    expect(reads).toEqual([]);
  });
});

describe('readLedger', () => {
  it('sums landed claims only; the next number follows the last, or replaces an expired last one', async () => {
    const landed = [
      claim({ status: 'landed', amount: '70' }),
      claim({ claimNumber: 1, status: 'landed', amount: '5' }),
    ];
    const withPending = await readLedger(
      'coin',
      'wallet',
      ledger({ height: 10, receipt: null }, [...landed, claim({ claimNumber: 2, amount: '9' })]).deps,
    );
    expect(withPending).toMatchObject({
      claimed: 75n,
      next: 3,
      pending: { claimNumber: 2 },
      replaces: undefined,
    });
    const expired = await readLedger(
      'coin',
      'wallet',
      ledger({ height: 5000, receipt: account(0) }, [...landed, claim({ claimNumber: 2, attempt: 3 })]).deps,
    );
    expect(expired).toMatchObject({ claimed: 75n, next: 2, pending: undefined, replaces: { attempt: 3 } });
    expect(await readLedger('coin', 'wallet', ledger({ height: 0, receipt: null }, []).deps)).toMatchObject({
      claimed: 0n,
      next: 0,
    });
  });
});
