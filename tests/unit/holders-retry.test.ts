// The holder read when pages fail, against the local chain started in this file with flaky pages (a share of the
// distinct getProgramAccounts(V2) requests fails once: 429, 503, -32016 from a node behind, or an answer past the
// client's timeout): every failed page is read again and the read resumes there, so the holders and the
// snapshot's root equal the fault-free read's; a page that keeps failing ends the read with a transient error that
// says so (the builder's message is redelivered, the coin is not marked unusable); a backoff that does not fit the
// invocation's deadline answers 503 with the wait at once.
import { createHash, randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChainReader,
  type HoldersOptions,
  isOnCurve,
  makeChainReader,
  type TokenHolders,
} from '../../lib/chain/index.js';
import { withDeadline } from '../../lib/core/deadline.js';
import { type BuilderDeps, buildSnapshot } from '../../lib/snapshots/builder.js';
import type { StoredObject } from '../../lib/snapshots/layout.js';
import type { SnapshotSummary } from '../../lib/snapshots/repository.js';
import { type LocalChain, startLocalChain } from '../../scripts/chain/rpc-server.js';
import { putMint, putTokenAccount } from '../../scripts/chain/seed.js';

const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';

const TOKEN = 1_000_000n;
const SUPPLY = 1_000_000_000_000_000n;
const HOLDERS = 1_500;
let local: LocalChain;
let mint: string;

const wallet = (i: number): string => {
  for (let k = 0; ; k++) {
    const bytes = createHash('sha256').update(`holder-${i}-${k}`).digest();
    if (isOnCurve(bytes)) return bs58.encode(bytes);
  }
};

const reader = (holders: HoldersOptions, timeoutMs: number): ChainReader =>
  makeChainReader({
    rpcUrl: local.url,
    requestTimeoutMs: timeoutMs,
    holders: { pageSize: 100, retryBaseMs: 20, ...holders },
  });

/** The holder read of `mint` as the builder asks for it (a large set: partitioned from the start). */
const read = (chain: ChainReader) =>
  chain.listTokenHolders(mint, { programId: TOKEN_PROGRAM, expectedAccounts: HOLDERS, maxAccounts: 10_000 });

const same = (a: TokenHolders, b: TokenHolders) => {
  expect(a.count).toBe(b.count);
  expect(Buffer.compare(a.owners, b.owners)).toBe(0);
  expect([...a.balances]).toEqual([...b.balances]);
};

/** The first snapshot of one coin over `chain`: its merkle root. */
const rootOf = async (chain: ChainReader, coinMint: string) => {
  let summary: SnapshotSummary | undefined;
  const objects = new Map<string, Uint8Array>();
  const deps: BuilderDeps = {
    chain: {
      getSlot: () => chain.getSlot(),
      getMint: async (m) =>
        String(m) === coinMint
          ? ({ address: coinMint, decimals: 6, supply: SUPPLY } as Awaited<
              ReturnType<ChainReader['getMint']>
            >)
          : chain.getMint(m),
      listTokenHolders: (m, options) => chain.listTokenHolders(m, options),
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
      for (const o of list) objects.set(o.key, o.body as Uint8Array);
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
  if (outcome.status !== 'created') throw new Error(`build ${outcome.status}`);
  return outcome.summary.merkleRoot;
};

beforeAll(async () => {
  local = await startLocalChain({ port: 0, slotMs: 50 });
  mint = bs58.encode(randomBytes(32));
  putMint(local.ledger, mint, { supply: SUPPLY });
  for (let i = 0; i < HOLDERS; i++)
    putTokenAccount(
      local.ledger,
      bs58.encode(randomBytes(32)),
      mint,
      wallet(i),
      BigInt(1 + (i % 97)) * TOKEN,
    );
});

afterAll(async () => {
  local?.setFlaky(undefined);
  await local?.stop();
});

describe.each([['rpc'], ['helius']] as const)('holder read with flaky pages (%s)', (source) => {
  it('reads every failed page again, resumes there, and gets the fault-free holders and root', async () => {
    // Pages small enough that a quarter failing is many failures for either source (the partitioned read's
    // requests are many already; the cursor read's 15 pages of 100 would leave about 4, too few to hold each kind).
    const pages = { source, pageSize: source === 'rpc' ? 100 : 25 } as const;
    local.setFlaky(undefined);
    local.traffic(true);
    const clean = await read(reader(pages, 10_000));
    const cleanServed = local.traffic(true).served;
    const coinMint = bs58.encode(randomBytes(32));
    const cleanRoot = await rootOf(reader(pages, 10_000), coinMint);
    expect(clean.count).toBe(HOLDERS);
    expect(clean.retries).toBe(0);

    const method = source === 'rpc' ? 'getProgramAccounts' : 'getProgramAccountsV2';
    // A quarter of the distinct pages fail once, each kind in turn; `timeout` answers after the client gave up;
    // the 429s send no Retry-After (the reader's own backoff applies: the test's is 20 ms).
    local.setFlaky({ methods: [method], rate: 0.25, delayMs: 1_500, seed: source });
    local.traffic(true);
    const flaky = await read(reader(pages, 1_000));
    const traffic = local.traffic(true);
    same(flaky, clean);
    expect(flaky.pages).toBe(clean.pages);
    const injected = Object.values(traffic.flaky).reduce((a, b) => a + (b ?? 0), 0);
    expect(injected).toBeGreaterThan(source === 'rpc' ? 20 : 3);
    for (const kind of ['rateLimited', 'unavailable', 'minContextSlot', 'timeout'] as const)
      expect(traffic.flaky[kind] ?? 0).toBeGreaterThan(0);
    // Every failure read again (a page slow past 1 s on a busy machine is one more).
    expect(flaky.retries).toBeGreaterThanOrEqual(injected);
    // Resumed, not restarted: the requests served are the fault-free read's plus one per page read again.
    expect(traffic.served[method]).toBe((cleanServed[method] ?? 0) + flaky.retries);

    // The same through the builder: the root of the flaky read is the fault-free root (new draws: another seed).
    local.setFlaky({ methods: [method], rate: 0.25, delayMs: 1_500, seed: `${source}-build` });
    expect(await rootOf(reader(pages, 1_000), coinMint)).toBe(cleanRoot);
    local.setFlaky(undefined);
  });

  it('reports a read that can’t finish: transient, naming the page’s failures; the builder does not give up on the coin', async () => {
    const method = source === 'rpc' ? 'getProgramAccounts' : 'getProgramAccountsV2';
    local.injectFault({ method, status: 503, times: 3 });
    const error = await read(reader({ source, attempts: 3 }, 10_000)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      name: 'ChainTransientError',
      code: 'RPC_UNAVAILABLE',
      message: expect.stringMatching(/HTTP 503 \(the holder read could not finish: a page failed 3 times/),
    });
    local.injectFault({ method, status: 503, times: 3 });
    // A transient failure is thrown to the queue (redelivered later), not answered as an unusable token.
    await expect(
      rootOf(reader({ source, attempts: 3 }, 10_000), bs58.encode(randomBytes(32))),
    ).rejects.toMatchObject({
      code: 'RPC_UNAVAILABLE',
    });
    local.clearFaults();
  });

  it('answers 503 with the wait at once when a page’s backoff does not fit the deadline', async () => {
    const method = source === 'rpc' ? 'getProgramAccounts' : 'getProgramAccountsV2';
    local.injectFault({ method, status: 429, times: 1 });
    const started = Date.now();
    const error = await withDeadline({ getRemainingTimeInMillis: () => 1_500 }, () =>
      read(reader({ source }, 10_000)),
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(Date.now() - started).toBeLessThan(700);
    expect(error).toMatchObject({
      status: 503,
      code: 'UPSTREAM_UNAVAILABLE',
      headers: { 'Retry-After': '1' },
    });
    local.clearFaults();
  });
});
