// The airdrop is released, never re-split (lib/snapshots/airdrop-release.ts, builder.ts): the real builder over
// in-memory storage and a modelled token, with holders moving tokens between every round. The attacker's play —
// claim, move the tokens to a fresh wallet, claim again — must never take more than the pool.
import { createHash } from 'node:crypto';
import bs58 from 'bs58';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  HoldersLimitError,
  holdersFromEntries,
  isOnCurve,
  type ListHoldersOptions,
} from '../../lib/chain/index.js';
import { addRound, airdropDue, releaseWindow } from '../../lib/snapshots/airdrop-release.js';
import { computeAllocations } from '../../lib/snapshots/allocation.js';
import { type BuilderDeps, buildSnapshot, MAX_AIRDROP_ACCOUNTS } from '../../lib/snapshots/builder.js';
import type { StoredObject } from '../../lib/snapshots/layout.js';
import { readProof } from '../../lib/snapshots/layout.js';
import type { SnapshotSummary } from '../../lib/snapshots/repository.js';

const HOUR = 3_600_000;
const TOKEN = 1_000_000n; // the airdrop token: 6 decimals
const SUPPLY = 1_000_000_000_000_000n;
const POOL = SUPPLY / 10n;
const START = Date.parse('2026-03-01T00:00:00.000Z');
/** A deterministic wallet: the first hash of `wallet-i` that is an ed25519 key (the builder skips PDAs). */
const walletOf = (i: number) => {
  for (let k = 0; ; k++) {
    const key = createHash('sha256').update(`wallet-${i}-${k}`).digest();
    if (isOnCurve(key)) return bs58.encode(key);
  }
};
const COIN = walletOf(10_000);

/** The builder over memory: the token's balances are the model's, objects and the summary live in maps. */
const world = () => {
  const balances = new Map<string, bigint>();
  const objects = new Map<string, Uint8Array>();
  let summary: SnapshotSummary | undefined;
  let now = START;
  /** The coin's supply on chain now: burning tokens lowers it. */
  let supply = SUPPLY;
  const deps: BuilderDeps = {
    chain: {
      listTokenHolders: async () => holdersFromEntries(balances),
      getMint: async (mint) =>
        ({ address: String(mint), decimals: 6, supply }) as Awaited<
          ReturnType<BuilderDeps['chain']['getMint']>
        >,
      getSlot: async () => Math.floor((now - START) / 400),
    },
    findCoin: async (coinMint) => ({
      coinMint,
      gameId: 'game',
      airdropMint: walletOf(20_000),
      vaultAddress: null,
      emissionStartAt: new Date(START).toISOString(),
      emissionDays: 1,
    }),
    putObjects: async (list: readonly StoredObject[]) => {
      for (const o of list) objects.set(o.key, new Uint8Array(o.body as Uint8Array));
    },
    getObject: async (key, range) => {
      const body = objects.get(key);
      return body && range ? body.subarray(range.start, range.end + 1) : body;
    },
    getSummary: async () => summary,
    putSummaryIfNewer: async (next) => {
      if (summary && summary.version >= next.version) return false;
      summary = next;
      return true;
    },
    now: () => new Date(now),
  };
  return {
    balances,
    deps,
    advance: (ms: number) => {
      now += ms;
    },
    burn: (amount: bigint) => {
      supply -= amount;
    },
    summary: () => summary,
    /** A wallet's cumulative allocation in the current snapshot (its proof's amount), 0 when absent. */
    allocated: async (wallet: string) => {
      if (!summary) return 0n;
      const proof = await readProof(summary.prefix, wallet, deps.getObject);
      return proof ? BigInt(proof.amount) : 0n;
    },
  };
};

describe('release schedule', () => {
  it('releases linearly from the launch to the end of the last emission day, never more than the pool', () => {
    const window = releaseWindow('2026-03-01T06:00:00.000Z', 7);
    expect(window.endMs).toBe(Date.parse('2026-03-08T00:00:00.000Z'));
    expect(airdropDue(POOL, window, window.startMs)).toBe(0n);
    expect(airdropDue(POOL, window, window.startMs - 1)).toBe(0n);
    expect(airdropDue(POOL, window, window.endMs)).toBe(POOL);
    expect(airdropDue(POOL, window, window.endMs + 10 * HOUR)).toBe(POOL);
    const half = window.startMs + (window.endMs - window.startMs) / 2;
    expect(airdropDue(POOL, window, half)).toBe(POOL / 2n);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 8 * 24 }), fc.integer({ min: 0, max: 8 * 24 }), (a, b) => {
        const [x, y] = [window.startMs + Math.min(a, b) * HOUR, window.startMs + Math.max(a, b) * HOUR];
        const [dx, dy] = [airdropDue(POOL, window, x), airdropDue(POOL, window, y)];
        expect(dx <= dy && dy <= POOL).toBe(true);
      }),
    );
  });

  it('adds a round to the previous leaves by claimant, each claimant once', () => {
    const round = computeAllocations(
      new Map([
        [walletOf(1), 1n],
        [walletOf(2), 3n],
      ]),
      400n,
    );
    const first = addRound(new Uint8Array(0), round);
    expect(first.total).toBe(400n);
    const records = Buffer.alloc(first.amounts.length * 48);
    first.amounts.forEach((amount, i) => {
      first.claimants.copy(records, i * 48, i * 32, i * 32 + 32);
      records.writeBigUInt64LE(amount, i * 48 + 32);
    });
    const next = computeAllocations(
      new Map([
        [walletOf(2), 1n],
        [walletOf(3), 1n],
      ]),
      100n,
    );
    const second = addRound(records, next);
    expect(second.total).toBe(500n);
    const byWallet = new Map<string, bigint>();
    second.amounts.forEach((amount, i) => {
      byWallet.set(bs58.encode(second.claimants.subarray(i * 32, i * 32 + 32)), amount);
    });
    expect(byWallet).toEqual(
      new Map([
        [walletOf(1), 100n],
        [walletOf(2), 350n],
        [walletOf(3), 50n],
      ]),
    );
  });
});

/** Each holder's pro-rata share of a round, computed apart from the builder, added to what it accrued. */
const addShares = (accrued: Map<string, bigint>, balances: Map<string, bigint>, round: bigint) => {
  const shares = computeAllocations(new Map([...balances].filter(([, b]) => b > 0n)), round, {
    minBalance: TOKEN,
  });
  shares.owners.forEach((owner, i) => {
    accrued.set(owner, (accrued.get(owner) ?? 0n) + (shares.amounts[i] as bigint));
  });
};

/** One hourly snapshot; what it released is credited to the holders of the moment. Returns Σ released. */
const snapshotRound = async (w: ReturnType<typeof world>, accrued: Map<string, bigint>, released: bigint) => {
  const outcome = await buildSnapshot(COIN, w.deps);
  if (outcome.status !== 'created') return released;
  const total = BigInt(outcome.summary.totalAllocation);
  addShares(accrued, w.balances, total - released);
  return total;
};

/** A claim: it pays the allocation less what was paid, and the allocation is exactly what the wallet accrued. */
const claim = async (
  w: ReturnType<typeof world>,
  wallet: string,
  accrued: Map<string, bigint>,
  paid: Map<string, bigint>,
) => {
  const allocated = await w.allocated(wallet);
  expect(allocated).toBe(accrued.get(wallet) ?? 0n);
  expect(allocated - (paid.get(wallet) ?? 0n) >= 0n).toBe(true);
  paid.set(wallet, allocated);
};

/** `percent` of a wallet's tokens to another. */
const move = (balances: Map<string, bigint>, from: string, to: string, percent: number) => {
  const amount = ((balances.get(from) ?? 0n) * BigInt(percent)) / 100n;
  balances.set(from, (balances.get(from) ?? 0n) - amount);
  balances.set(to, (balances.get(to) ?? 0n) + amount);
};

describe('airdrop over 24 hourly snapshots with tokens moving between every pair', () => {
  it('never allocates more than the pool, and pays each wallet at most what it accrued while holding', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Per hour: moves (from, to, share of the sender's balance in %), and which wallets claim.
        fc.array(
          fc.record({
            moves: fc.array(
              fc.tuple(fc.nat({ max: 7 }), fc.nat({ max: 7 }), fc.integer({ min: 1, max: 100 })),
              { maxLength: 6 },
            ),
            claims: fc.array(fc.nat({ max: 7 }), { maxLength: 8 }),
          }),
          { minLength: 24, maxLength: 24 },
        ),
        async (hours) => {
          const w = world();
          const wallets = Array.from({ length: 8 }, (_, i) => walletOf(i));
          // Four holders to start with; the other four are fresh wallets tokens may move to.
          for (const [i, amount] of [100n, 50n, 30n, 20n].entries())
            w.balances.set(wallets[i] as string, amount * TOKEN);
          const paid = new Map<string, bigint>();
          /** What each wallet accrued, computed apart from the builder: its pro-rata share of every round. */
          const accrued = new Map<string, bigint>();
          let released = 0n;
          for (const hour of hours) {
            w.advance(HOUR);
            released = await snapshotRound(w, accrued, released);
            expect(released <= POOL).toBe(true);
            // Claims pay what is allocated and not yet paid (the claim rule); the allocation is what it accrued.
            for (const i of hour.claims) await claim(w, wallets[i] as string, accrued, paid);
            // Then holders move tokens, e.g. to a fresh wallet after claiming.
            for (const [from, to, percent] of hour.moves)
              move(w.balances, wallets[from] as string, wallets[to] as string, percent);
          }
          const totalPaid = [...paid.values()].reduce((s, v) => s + v, 0n);
          expect(totalPaid <= POOL).toBe(true);
          // The window has ended after 24 hours: the whole pool is released, no more.
          expect(released).toBe(POOL);
          for (const wallet of wallets) expect(await w.allocated(wallet)).toBe(accrued.get(wallet) ?? 0n);
        },
      ),
      { numRuns: 25 },
    );
  }, 60_000);

  it('a holder that moves its tokens to a fresh wallet after a round gets nothing more for them', async () => {
    const w = world();
    const [holder, fresh, other] = [walletOf(1), walletOf(2), walletOf(3)];
    w.balances.set(holder, 100n * TOKEN);
    w.balances.set(other, 100n * TOKEN);
    w.advance(12 * HOUR);
    await buildSnapshot(COIN, w.deps);
    expect(await w.allocated(holder)).toBe(POOL / 4n);
    // Moved to a fresh wallet: the fresh wallet shares only the second half.
    w.balances.set(fresh, 100n * TOKEN);
    w.balances.set(holder, 0n);
    w.advance(12 * HOUR);
    await buildSnapshot(COIN, w.deps);
    expect(await w.allocated(holder)).toBe(POOL / 4n);
    expect(await w.allocated(fresh)).toBe(POOL / 4n);
    expect(await w.allocated(other)).toBe(POOL / 2n);
    expect(w.summary()?.totalAllocation).toBe(POOL.toString());
    // Nothing is left to release: a later build changes nothing.
    w.advance(HOUR);
    expect((await buildSnapshot(COIN, w.deps)).status).toBe('unchanged');
  });

  it('keeps releasing the fixed allocation when holders burn the coin: the pool never shrinks below what was released', async () => {
    const w = world();
    const [holder, other] = [walletOf(1), walletOf(2)];
    w.balances.set(holder, 100n * TOKEN);
    w.balances.set(other, 100n * TOKEN);
    w.advance(12 * HOUR);
    await buildSnapshot(COIN, w.deps);
    expect(w.summary()?.totalAllocation).toBe((POOL / 2n).toString());
    // The attacker burns 60 % of the coin: a pool read from the supply now (4 % of it) is below what was released.
    w.burn((SUPPLY * 6n) / 10n);
    w.advance(12 * HOUR);
    expect((await buildSnapshot(COIN, w.deps)).status).toBe('created');
    expect(w.summary()?.totalAllocation).toBe(POOL.toString());
    expect(await w.allocated(holder)).toBe(POOL / 2n);
    expect(await w.allocated(other)).toBe(POOL / 2n);
  });

  it('keeps what is due for the next round when no holder is eligible, and reports an oversized mint', async () => {
    const w = world();
    w.advance(6 * HOUR);
    expect(await buildSnapshot(COIN, w.deps)).toEqual({ status: 'skipped', reason: 'no eligible holder' });
    w.balances.set(walletOf(1), 5n * TOKEN);
    w.advance(6 * HOUR);
    await buildSnapshot(COIN, w.deps);
    expect(await w.allocated(walletOf(1))).toBe(POOL / 2n);
    // The reader stops past the builder's bound (holders-read.test.ts reads a real one against the local chain).
    const asked: Array<ListHoldersOptions | undefined> = [];
    w.deps.chain.listTokenHolders = async (_, options) => {
      asked.push(options);
      throw new HoldersLimitError(options?.maxAccounts ?? 0);
    };
    w.advance(HOUR);
    const outcome = await buildSnapshot(COIN, w.deps);
    expect(asked[0]?.maxAccounts).toBe(MAX_AIRDROP_ACCOUNTS);
    expect(outcome).toMatchObject({
      status: 'skipped',
      reason: expect.stringMatching(/unusable: more than 1500000 token accounts/),
    });
  });
});
