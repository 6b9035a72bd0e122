// The snapshot's holder read in pages (lib/chain/holders.ts) against the local chain started in this file: the
// partitioned standard RPC read and the provider's paginated getProgramAccountsV2 give the holders and the
// snapshot root of a one-shot read; owners off the ed25519 curve (PDAs) get nothing; a mint past the account
// bound is reported, not retried; the local chain refuses what the provider's V2 refuses.
import { createHash, randomBytes } from 'node:crypto';
import { address, getProgramDerivedAddress } from '@solana/kit';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ChainError,
  type ChainReader,
  HoldersLimitError,
  type HoldersOptions,
  holdersFromEntries,
  isOnCurve,
  makeChainReader,
  type TokenHolders,
} from '../../lib/chain/index.js';
import { type BuilderDeps, buildSnapshot } from '../../lib/snapshots/builder.js';
import type { StoredObject } from '../../lib/snapshots/layout.js';
import type { SnapshotSummary } from '../../lib/snapshots/repository.js';
import { type LocalChain, startLocalChain } from '../../scripts/chain/rpc-server.js';
import { putMint, putTokenAccount } from '../../scripts/chain/seed.js';

const TOKEN = 1_000_000n;
const SUPPLY = 1_000_000_000_000_000n;
const SYSTEM_PROGRAM = '11111111111111111111111111111111';

let local: LocalChain;

const key = (label: string, onCurve = true): Uint8Array => {
  for (let k = 0; ; k++) {
    const bytes = createHash('sha256').update(`${label}-${k}`).digest();
    if (isOnCurve(bytes) === onCurve) return bytes;
  }
};
const addr = (label: string, onCurve = true) => bs58.encode(key(label, onCurve));
const fresh = () => bs58.encode(randomBytes(32));

interface Fixture {
  mint: string;
  /** Owner → summed balance, as a one-shot read sees it. */
  expected: Map<string, bigint>;
  pda: string;
}

/**
 * A mint with 40 wallets (some with two accounts, one with a zero balance), a PDA holder (a program's vault),
 * and, for Token-2022, accounts of both sizes (plain 165 bytes and with an extension).
 */
const seedMint = async (token2022: boolean): Promise<Fixture> => {
  const mint = fresh();
  putMint(local.ledger, mint, { token2022, supply: SUPPLY });
  const expected = new Map<string, bigint>();
  const put = (owner: string, amount: bigint, extended = false) => {
    putTokenAccount(local.ledger, fresh(), mint, owner, amount, { token2022, extended });
    if (amount > 0n) expected.set(owner, (expected.get(owner) ?? 0n) + amount);
  };
  for (let i = 0; i < 40; i++) {
    const owner = addr(`${mint}-wallet-${i}`);
    put(owner, BigInt(i + 1) * TOKEN, token2022 && i % 3 === 0);
    if (i % 5 === 0) put(owner, 7n * TOKEN, token2022 && i % 2 === 0); // a second account, summed
  }
  put(addr(`${mint}-empty`), 0n);
  const [pda] = await getProgramDerivedAddress({
    programAddress: address(SYSTEM_PROGRAM),
    seeds: [bs58.decode(mint)],
  });
  put(pda, 500n * TOKEN, token2022);
  return { mint, expected, pda };
};

const reader = (holders: HoldersOptions) => makeChainReader({ rpcUrl: local.url, holders });

const asMap = (holders: TokenHolders) =>
  new Map(
    Array.from({ length: holders.count }, (_, i) => [
      bs58.encode(holders.owners.subarray(i * 32, i * 32 + 32)),
      holders.balances[i] as bigint,
    ]),
  );

/** The builder over memory with this chain reader: returns the first snapshot's summary and leaf owners. */
const build = async (chain: Pick<ChainReader, 'listTokenHolders' | 'getMint' | 'getSlot'>, mint: string) => {
  const objects = new Map<string, Uint8Array>();
  let summary: SnapshotSummary | undefined;
  const coinMint = fresh();
  const deps: BuilderDeps = {
    chain: {
      ...chain,
      // The coin itself is modelled: only the airdrop token is on the chain.
      getMint: async (m) =>
        String(m) === coinMint
          ? ({ address: coinMint, decimals: 6, supply: SUPPLY } as Awaited<
              ReturnType<ChainReader['getMint']>
            >)
          : chain.getMint(m),
    },
    findCoin: async () => ({
      coinMint,
      gameId: 'game',
      airdropMint: mint,
      vaultAddress: null,
      emissionStartAt: '2026-01-01T00:00:00.000Z',
      emissionDays: 1,
    }),
    putObjects: async (list: readonly StoredObject[]) => {
      for (const o of list) objects.set(o.key, new Uint8Array(o.body as Uint8Array));
    },
    getObject: async (k) => objects.get(k),
    getSummary: async () => summary,
    putSummaryIfNewer: async (next) => {
      summary = next;
      return true;
    },
    now: () => new Date('2026-02-01T00:00:00.000Z'),
  };
  const outcome = await buildSnapshot(coinMint, deps);
  const leaves = summary
    ? (objects.get(`${summary.prefix}holders.bin`) ?? new Uint8Array())
    : new Uint8Array();
  const owners = Array.from({ length: leaves.length / 48 }, (_, i) =>
    bs58.encode(leaves.subarray(i * 48, i * 48 + 32)),
  );
  return { outcome, summary, owners };
};

beforeAll(async () => {
  local = await startLocalChain({ port: 0, slotMs: 50 });
});

afterAll(async () => {
  await local?.stop();
});

describe.each([
  ['classic SPL Token', false],
  ['Token-2022', true],
])('holders of a %s mint read in pages', (_, token2022) => {
  let fixture: Fixture;
  beforeAll(async () => {
    fixture = await seedMint(token2022);
  });

  it('partitioned RPC and V2 pages give the one-shot holders, with the slot range they read', async () => {
    const oneShot = await reader({ source: 'rpc', pageSize: 10_000 }).listTokenHolders(fixture.mint);
    const partitioned = await reader({ source: 'rpc', pageSize: 3 }).listTokenHolders(fixture.mint);
    const cursor = await reader({ source: 'helius', pageSize: 4 }).listTokenHolders(fixture.mint);
    expect(asMap(oneShot)).toEqual(fixture.expected);
    // The three indexed queries (classic; Token-2022 by size and by account type), one page each.
    expect(oneShot.pages).toBe(3);
    for (const paged of [partitioned, cursor]) {
      expect(paged.count).toBe(oneShot.count);
      expect(Buffer.compare(paged.owners, oneShot.owners)).toBe(0);
      expect([...paged.balances]).toEqual([...oneShot.balances]);
      expect(paged.pages).toBeGreaterThan(5);
      expect(paged.slots.first).toBeGreaterThan(0);
      expect(paged.slots.last).toBeGreaterThanOrEqual(paged.slots.first);
    }
  });

  it('builds the same root from pages as from a one-shot read, and the PDA holder gets nothing', async () => {
    const oneShot = reader({ source: 'rpc', pageSize: 10_000 });
    const stub = {
      ...oneShot,
      listTokenHolders: async () => holdersFromEntries(fixture.expected, 1),
    };
    const reference = await build(stub, fixture.mint);
    const paged = await build(reader({ source: 'rpc', pageSize: 2 }), fixture.mint);
    const cursor = await build(reader({ source: 'helius', pageSize: 3 }), fixture.mint);
    expect(reference.outcome.status).toBe('created');
    for (const run of [paged, cursor]) {
      expect(run.outcome.status).toBe('created');
      expect(run.summary?.merkleRoot).toBe(reference.summary?.merkleRoot);
      expect(run.summary?.readSlots?.last).toBeGreaterThanOrEqual(run.summary?.readSlots?.first ?? 0);
    }
    expect(paged.owners).not.toContain(fixture.pda);
    expect(paged.owners).toHaveLength(40);
    expect(isOnCurve(bs58.decode(fixture.pda))).toBe(false);
  });
});

describe('bounds', () => {
  it('reports a mint with more token accounts than the bound instead of retrying it', async () => {
    const { mint } = await seedMint(false);
    const chain = reader({ source: 'rpc', pageSize: 5 });
    await expect(chain.listTokenHolders(mint, { maxAccounts: 10 })).rejects.toMatchObject({
      name: 'HoldersLimitError',
    });
  });

  it('the builder acknowledges a refused read (too many accounts, a permanent node refusal) and retries the rest', async () => {
    const { mint } = await seedMint(false);
    const chain = reader({ source: 'rpc', pageSize: 5000 });
    const failing = (error: Error) => ({ ...chain, listTokenHolders: async () => Promise.reject(error) });
    const tooMany = await build(failing(new HoldersLimitError(1_500_000)), mint);
    expect(tooMany.outcome).toMatchObject({
      status: 'skipped',
      reason: expect.stringMatching(/more than 1500000/),
    });
    const refused = await build(
      failing(new ChainError('RPC_ERROR', 'getProgramAccounts: filter unsupported')),
      mint,
    );
    expect(refused.outcome).toMatchObject({
      status: 'skipped',
      reason: expect.stringMatching(/unsupported/),
    });
    await expect(
      build(failing(new ChainError('RPC_UNAVAILABLE', 'getProgramAccounts: 503')), mint),
    ).rejects.toThrow(/503/);
  });

  it('refuses a partition it cannot split (one owner prefix past the page size) as permanent', async () => {
    const mint = fresh();
    putMint(local.ledger, mint, { supply: SUPPLY });
    const owner = addr('many-accounts');
    for (let i = 0; i < 6; i++) putTokenAccount(local.ledger, fresh(), mint, owner, TOKEN);
    const error = await reader({ source: 'rpc', pageSize: 5 })
      .listTokenHolders(mint)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'RPC_ERROR', transient: false });
    expect(String(error)).toMatch(/more than 5 token accounts under owner prefix/);
    // The provider's cursor has no such limit.
    const holders = await reader({ source: 'helius', pageSize: 5 }).listTokenHolders(mint);
    expect(asMap(holders)).toEqual(new Map([[owner, 6n * TOKEN]]));
  });
});

describe('the local chain serves getProgramAccountsV2 as providers do', () => {
  const call = async (config: Record<string, unknown>) => {
    const response = await fetch(local.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'getProgramAccountsV2',
        params: ['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', config],
      }),
    });
    return (await response.json()) as { result?: unknown; error?: { code: number; message: string } };
  };

  it('refuses a limit outside 1–10 000, unknown fields, changedSinceSlot and a foreign cursor', async () => {
    for (const config of [
      { limit: 0 },
      { limit: 10_001 },
      { limit: 2.5 },
      { pageSize: 10 },
      { changedSinceSlot: 5 },
      { paginationKey: 'not-a-key' },
    ])
      expect((await call(config)).error).toMatchObject({ code: -32602 });
  });

  it('pages with a cursor until it is null, and refuses a context slot not reached yet', async () => {
    const { mint, expected } = await seedMint(false);
    const filters = [{ dataSize: 165 }, { memcmp: { offset: 0, bytes: mint } }];
    const seen = new Set<string>();
    let paginationKey: string | null = null;
    let pages = 0;
    do {
      const { result } = await call({
        filters,
        limit: 7,
        withContext: true,
        ...(paginationKey ? { paginationKey } : {}),
      });
      const { context, value } = result as {
        context: { slot: number };
        value: { accounts: Array<{ pubkey: string }>; paginationKey: string | null };
      };
      expect(context.slot).toBeGreaterThan(0);
      expect(value.accounts.length).toBeLessThanOrEqual(7);
      for (const a of value.accounts) seen.add(a.pubkey);
      paginationKey = value.paginationKey;
      pages++;
    } while (paginationKey);
    // 40 wallets + 8 second accounts + an empty one + the PDA's.
    expect(seen.size).toBe(50);
    expect(pages).toBe(Math.ceil(50 / 7));
    expect(expected.size).toBe(41);
    expect((await call({ filters, minContextSlot: local.ledger.slot + 1000 })).error).toMatchObject({
      code: -32016,
    });
  });
});
