// Settling a pending claim against the chain (lib/snapshots/claims/ledger.ts): landed only when its receipt holds
// data, expired only when the chain had passed its lifetime before the receipt was read unused; the landed
// transaction is the one the vault signed, whichever attempt of the claim it was.
import { randomBytes } from 'node:crypto';
import { getTransactionDecoder } from '@solana/kit';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import type { AccountInfo, LandedTransaction, SignatureInfo } from '../../lib/chain/index.js';
import {
  type LedgerDeps,
  presentSigners,
  readLedger,
  resolveClaim,
} from '../../lib/snapshots/claims/ledger.js';
import type { ClaimRecord } from '../../lib/snapshots/repository.js';

/** A wire transaction: `slots` signatures (null: not signed yet), then a legacy message with those signers' keys. */
const wireOf = (slots: Array<Buffer | null>, signers = slots.map(() => randomBytes(32))) => {
  const keys = [...signers, randomBytes(32), randomBytes(32)]; // two more accounts that do not sign
  const message = Buffer.concat([
    Buffer.from([slots.length, 0, 1, keys.length]),
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

const claim = (over: Partial<ClaimRecord> = {}): ClaimRecord => ({
  coinMint: 'coin',
  wallet: 'wallet',
  claimNumber: 0,
  attempt: 1,
  status: 'pending',
  origin: 'build',
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
  opts: {
    height: number;
    receipt: AccountInfo | null;
    onHeight?: () => void;
    /** The receipt's history, newest first, and the landed transactions by signature. */
    history?: { entries: SignatureInfo[]; landed: Record<string, LandedTransaction> };
  },
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
      findSignatures: async () => opts.history?.entries ?? [],
      getLandedTransaction: async (signature) => opts.history?.landed[signature] ?? null,
    },
    listClaimRecords: async () => records,
    settleClaim: async (c, change) => ({
      ...c,
      status: change.status,
      claimedAt: change.at,
      signature: change.signature ?? c.signature,
    }),
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

  it('names the vault-signed transaction that landed, also an earlier attempt than the one recorded', async () => {
    // Recorded: attempt 3, signed by the vault (slot 1), the participant's slot (0) empty. What landed is attempt
    // 2's transaction (another message, so other signatures), signed by the same two keys; strangers wrote memos.
    const [participant, vault] = [randomBytes(32), randomBytes(32)];
    const recorded = wireOf([null, randomBytes(64)], [participant, vault]);
    const info = (signature: string, memo: string | null): SignatureInfo => ({
      signature,
      slot: 1,
      err: null,
      memo,
      blockTime: null,
    });
    const landedTx = (signers: Buffer[]): LandedTransaction => ({
      signers: signers.map((k) => bs58.encode(k)),
      signatures: signers.map(() => bs58.encode(randomBytes(64))),
      tokenChanges: [],
      blockTime: null,
    });
    const stranger = randomBytes(32);
    const history = {
      entries: [
        info('after', 'arcadia:claim mint=coin claim=0 amount=0'),
        info('attempt-2', 'arcadia:claim mint=coin claim=0 amount=100'),
        info('before', 'arcadia:claim mint=coin claim=0 amount=99999'),
      ],
      landed: {
        after: landedTx([stranger]),
        'attempt-2': landedTx([participant, vault]),
        before: landedTx([stranger, participant]),
      },
    };
    const { deps } = ledger({ height: 5000, receipt: account(1), history }, []);
    expect(await resolveClaim(claim({ attempt: 3, transaction: recorded }), deps)).toMatchObject({
      status: 'landed',
      signature: 'attempt-2',
    });
    // Without the vault's transaction among them, the signature stays unknown (the claim still landed).
    const strangersOnly = {
      entries: history.entries.filter((e) => e.signature !== 'attempt-2'),
      landed: history.landed,
    };
    expect(
      await resolveClaim(
        claim({ transaction: recorded }),
        ledger({ height: 5000, receipt: account(1), history: strangersOnly }, []).deps,
      ),
    ).toMatchObject({ status: 'landed', signature: null });
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

describe('presentSigners', () => {
  it("reads the keys whose signature is present, as kit's transaction decoder does (every draw)", () => {
    for (let i = 0; i < 200; i++) {
      const slots = Array.from({ length: 1 + (i % 4) }, (_, j) =>
        (i + j) % 3 === 0 ? null : randomBytes(64),
      );
      const wire = wireOf(slots);
      const kit = Object.entries(getTransactionDecoder().decode(Buffer.from(wire, 'base64')).signatures)
        .filter(([, s]) => s !== null)
        .map(([key]) => key);
      expect(presentSigners(wire)).toEqual(kit);
      expect(kit).toHaveLength(slots.filter(Boolean).length);
    }
  });

  it('refuses a truncated transaction', () => {
    const wire = Buffer.from(wireOf([randomBytes(64)], [randomBytes(32)]), 'base64');
    for (const length of [0, 40, 70, 100])
      expect(() => presentSigners(wire.subarray(0, length).toString('base64'))).toThrow(/malformed/);
  });
});
