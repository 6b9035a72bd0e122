// Game coin emission and cumulative claims against the local stack (DynamoDB Local, S3, the local chain):
// settleCoinEmission once per (game, day) under repeats, concurrency and a crash before every write; 30 random
// days that conserve every token and end the coin, after which the grace rule follows; and claims of airdrop +
// emission executed on chain by a @solana/web3.js wallet, repeated and concurrent, never above the allocation.
import { randomUUID } from 'node:crypto';
import type { Base64EncodedWireTransaction } from '@solana/kit';
import { address } from '@solana/kit';
import { getAssociatedTokenAddressSync, TOKEN_2022_PROGRAM_ID } from '@solana/spl-token';
import { Keypair, PublicKey, Transaction } from '@solana/web3.js';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getMintToInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as launchHandler } from '../../functions/launcher/launch-game-coin.js';
import { handler as buildClaimHandler } from '../../functions/snapshots/build-claim-transactions.js';
import { sideEffects as builderDeps } from '../../functions/snapshots/build-snapshots.js';
import { handler as claimStatusHandler } from '../../functions/snapshots/get-claim-status.js';
import { handler as emissionHandler } from '../../functions/snapshots/get-coin-emission.js';
import { makeChain } from '../../lib/chain/index.js';
import { newKeypair } from '../../lib/chain/spl.js';
import type { CoinSummary } from '../../lib/games/model.js';
import { getGame, linkCoin, saveGame } from '../../lib/games/repository.js';
import * as coin from '../../lib/launcher/coin.js';
import * as steps from '../../lib/launcher/coin-steps.js';
import { buildSnapshot } from '../../lib/snapshots/builder.js';
import {
  getEmissionDay,
  getEmissionState,
  getWalletEmission,
} from '../../lib/snapshots/emission/repository.js';
import { addDays } from '../../lib/snapshots/emission-math.js';
import {
  claimableCoinAllocations,
  coinAllocationDeps,
  coinEmissionDeps,
  EMISSION_POOL,
  settleCoinEmission,
} from '../../lib/snapshots/index.js';
import { crashPlan, installCrashHooks, underCrashPlan } from '../helpers/crash.js';
import { registerGame } from '../helpers/games.js';
import { invoke } from '../helpers/http.js';
import { idpToken } from '../helpers/idp.js';
import { keypairWalletSigner } from '../helpers/keypair-signer.js';
import { recordCompletedLaunch } from '../helpers/snapshot-coin.js';
import { createMint } from '../helpers/spl-fixtures.js';
import { createDeveloper } from '../helpers/users.js';
import { localConnection } from '../helpers/web3-connection.js';

const SOL = 1_000_000_000n;
const TOKEN = 1_000_000n;
const AIRDROP_POOL = 100_000_000n * TOKEN;
const chain = makeChain({ rpcUrl: process.env.SOLANA_RPC_URL ?? '', pollMs: 50 });
const client = localConnection();
const deps = coinEmissionDeps();
const allocationDeps = coinAllocationDeps();

type Body<T> = { data: T; error?: { code: string; message: string } };

const wallet = () => Keypair.generate().publicKey.toBase58();
const emissionOf = async (w: string, coinMint: string) =>
  (await getWalletEmission(w, coinMint))?.emission ?? 0n;

/** A registered game whose coin summary says `coin` (DB only: settlement never touches the chain). */
const gameWithCoin = async (summary: Partial<CoinSummary> & { coinMint: string }, airdropMint?: string) => {
  const name = `emit-${randomUUID().slice(0, 8)}`;
  const dev = await createDeveloper(name);
  const view = await registerGame(dev);
  const game = await getGame(view.id);
  if (!game) throw new Error('game missing');
  await saveGame(
    {
      ...game,
      version: game.version + 1,
      airdropTokenAddress: airdropMint ?? null,
      coin: {
        gameCoinSymbol: 'EMIT',
        emissionDays: 7,
        status: 'active',
        emissionStartAt: '2031-03-01T10:00:00.000Z',
        emissionEndAt: '2031-03-08T00:00:00.000Z',
        ...summary,
      },
    },
    game,
  );
  await linkCoin(summary.coinMint, game.id);
  return { gameId: game.id, dev, name };
};

/** The UTC days of a coin starting 2031-03-01. */
const dayOf = (index: number) => addDays('2031-03-01', index);

describe('settleCoinEmission: once per (game, day)', () => {
  it('splits the day’s share by points; a repeat and concurrent runs emit nothing more', async () => {
    const coinMint = wallet();
    const { gameId } = await gameWithCoin({ coinMint });
    const [a, b] = [wallet(), wallet()];
    const players = [
      { userId: 'ua', wallet: a, points: 300 },
      { userId: 'ub', wallet: b, points: 100 },
      { userId: 'uz', wallet: wallet(), points: 0 },
    ];
    const share = EMISSION_POOL / 7n; // day 0 of 7: ⌊pool / 7⌋
    const first = await settleCoinEmission({ gameId, day: dayOf(0), players }, deps);
    expect(first).toEqual({ status: 'settled', tokensEmitted: share.toString(), coinEnded: false });
    const [ea, eb] = [await emissionOf(a, coinMint), await emissionOf(b, coinMint)];
    expect(ea + eb).toBe(share);
    expect(ea - (share * 3n) / 4n).toBeLessThanOrEqual(1n);
    expect(ea).toBeGreaterThanOrEqual((share * 3n) / 4n);

    const again = await settleCoinEmission({ gameId, day: dayOf(0), players }, deps);
    expect(again).toEqual({ status: 'already-settled', tokensEmitted: share.toString(), coinEnded: false });
    expect(await emissionOf(a, coinMint)).toBe(ea);

    const runs = await Promise.all(
      Array.from({ length: 4 }, () => settleCoinEmission({ gameId, day: dayOf(1), players }, deps)),
    );
    expect(runs.filter((r) => r.status === 'settled')).toHaveLength(1);
    expect(runs.filter((r) => r.status === 'already-settled')).toHaveLength(3);
    const day1 = (EMISSION_POOL * 2n) / 7n - share;
    expect((await emissionOf(a, coinMint)) + (await emissionOf(b, coinMint))).toBe(share + day1);
    expect((await getEmissionState(coinMint))?.emitted).toBe(share + day1);

    // Other days and games: outside the emission, no coin, a malformed day.
    expect((await settleCoinEmission({ gameId, day: '2031-02-28', players }, deps)).status).toBe(
      'outside-emission',
    );
    expect((await settleCoinEmission({ gameId, day: dayOf(7), players }, deps)).status).toBe(
      'outside-emission',
    );
    const { gameId: noCoin } = await gameWithCoin({ coinMint: wallet() });
    const bare = await getGame(noCoin);
    if (bare) await saveGame({ ...bare, version: bare.version + 1, coin: null }, bare);
    expect((await settleCoinEmission({ gameId: noCoin, day: dayOf(0), players }, deps)).status).toBe(
      'no-coin',
    );
    await expect(settleCoinEmission({ gameId, day: '2031-02-30', players }, deps)).rejects.toThrow(/UTC day/);
    // Crashed after freezing day 2: a retry with other players than the frozen ones is refused, not applied.
    installCrashHooks();
    const crashed = crashPlan(1);
    await underCrashPlan(crashed, () => settleCoinEmission({ gameId, day: dayOf(2), players }, deps));
    expect(crashed.crashed).toBe(true);
    const before = await emissionOf(a, coinMint);
    await expect(
      settleCoinEmission({ gameId, day: dayOf(2), players: [{ userId: 'ua', wallet: a, points: 1 }] }, deps),
    ).rejects.toThrow(/frozen/);
    expect(await emissionOf(a, coinMint)).toBe(before);
    expect((await settleCoinEmission({ gameId, day: dayOf(2), players }, deps)).status).toBe(
      'already-settled',
    );
    expect(await emissionOf(a, coinMint)).toBeGreaterThan(before);

    // GET /token-launcher/emission/{coinMint}: each settled day with what it emitted, summing to the total.
    const read = async (mint: string) =>
      invoke<
        Body<{ emittedAmount: string; poolAmount: string; days: Array<{ day: string; amount: string }> }>
      >(emissionHandler, {
        method: 'GET',
        path: `/token-launcher/emission/${mint}`,
        pathParameters: { coinMint: mint },
      });
    const emission = await read(coinMint);
    expect(emission.status, emission.text).toBe(200);
    const state = await getEmissionState(coinMint);
    expect(emission.body.data.emittedAmount).toBe(String(state?.emitted));
    expect(emission.body.data.poolAmount).toBe(EMISSION_POOL.toString());
    expect(emission.body.data.days.map((d) => d.day)).toEqual([dayOf(0), dayOf(1), dayOf(2)]);
    expect(emission.body.data.days.slice(0, 2).map((d) => d.amount)).toEqual([
      share.toString(),
      day1.toString(),
    ]);
    expect(emission.body.data.days.reduce((sum, d) => sum + BigInt(d.amount), 0n)).toBe(state?.emitted);
    expect((await read(wallet())).status).toBe(404);
  });

  it('a crash before any write of a settlement, then a retry: every wallet gets its share exactly once', async () => {
    installCrashHooks();
    const coinMint = wallet();
    const { gameId } = await gameWithCoin({ coinMint, emissionDays: 30 });
    // 150 wallets: two allocation chunks, so the writes are freeze, chunk 0, chunk 1, settled, last day.
    const wallets = Array.from({ length: 150 }, wallet);
    const players = wallets.map((w, i) => ({ userId: `u${i}`, wallet: w, points: 1 + (i % 7) }));
    let probe = crashPlan(Number.POSITIVE_INFINITY);
    await underCrashPlan(probe, () => settleCoinEmission({ gameId, day: dayOf(0), players }, deps));
    const writes = probe.writes.length;
    expect(writes).toBeGreaterThanOrEqual(4);
    const expected = new Map(
      await Promise.all(wallets.map(async (w) => [w, await emissionOf(w, coinMint)] as const)),
    );
    for (let k = 0; k < writes; k++) {
      const day = dayOf(k + 1);
      probe = crashPlan(k);
      await underCrashPlan(probe, () => settleCoinEmission({ gameId, day, players }, deps));
      expect(probe.crashed).toBe(true);
      const retry = await settleCoinEmission({ gameId, day, players }, deps);
      expect(retry.status).toBe(k === 0 ? 'settled' : 'already-settled');
      expect((await getEmissionDay(coinMint, day))?.status).toBe('settled');
      // Every day of this test has the same players: each wallet's share of day k+1, applied once.
      const record = await getEmissionDay(coinMint, day);
      const total = record?.amount ?? 0n;
      let sum = 0n;
      for (const w of wallets) {
        const now = await emissionOf(w, coinMint);
        const gained = now - (expected.get(w) ?? 0n);
        expect(gained).toBeGreaterThan(0n);
        sum += gained;
        expected.set(w, now);
      }
      expect(sum).toBe(total);
    }
    const state = await getEmissionState(coinMint);
    expect(state?.emitted).toBe([...expected.values()].reduce((x, y) => x + y, 0n));
  }, 120_000);
});

describe('30 random days and the coin’s lifecycle', () => {
  it('conserves every token (emitted + still in the pool = pool), ends the coin, then the grace rule follows', async () => {
    const coinMint = wallet();
    const { gameId, dev, name } = await gameWithCoin({ coinMint, emissionDays: 30 });
    const wallets = Array.from({ length: 12 }, wallet);
    let seed = 19;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    let emitted = 0n;
    const startedAt = Date.now();
    for (let i = 0; i < 30; i++) {
      // Some days nobody plays (their share rolls over); the last day always has players.
      const count = i === 29 ? 3 : Math.floor(random() * 6);
      const players = Array.from({ length: count }, (_, j) => ({
        userId: `u${j}`,
        wallet: wallets[Math.floor(random() * wallets.length)] ?? '',
        points: Math.floor(random() * 10_000),
      }));
      const outcome = await settleCoinEmission({ gameId, day: dayOf(i), players }, deps);
      expect(outcome.status).toBe('settled');
      expect(outcome.coinEnded).toBe(i === 29);
      emitted += BigInt(outcome.tokensEmitted);
      const still = EMISSION_POOL - emitted;
      expect(still).toBeGreaterThanOrEqual(0n);
      expect((await getEmissionState(coinMint))?.emitted).toBe(emitted);
    }
    const allocated = (await Promise.all(wallets.map((w) => emissionOf(w, coinMint)))).reduce(
      (x, y) => x + y,
      0n,
    );
    expect(allocated).toBe(emitted);
    expect(emitted).toBe(EMISSION_POOL); // the last day had points: the whole pool is out, nothing lost
    const listed = await claimableCoinAllocations(wallets[0] ?? '', allocationDeps);
    expect(listed.every((row) => row.gtokenAddress === coinMint && row.gameId === gameId)).toBe(true);

    // The coin ended when its last day settled; a repeat keeps it ended and emits nothing.
    const game = await getGame(gameId);
    expect(game?.coin?.status).toBe('ended');
    // emissionEndAt is now when it ended (during this test), no longer the planned 2031 end.
    const endedAt = Date.parse(game?.coin?.emissionEndAt ?? '');
    expect(endedAt).toBeGreaterThanOrEqual(startedAt);
    expect(endedAt).toBeLessThanOrEqual(Date.now());
    expect(await settleCoinEmission({ gameId, day: dayOf(29), players: [] }, deps)).toMatchObject({
      status: 'already-settled',
      coinEnded: true,
    });

    // Grace: the creator may launch the next coin (then fails only on its empty wallet); anyone else gets 403.
    const strangerName = `stranger-${randomUUID().slice(0, 8)}`;
    await createDeveloper(strangerName);
    const launch = async (who: string) =>
      invoke<Body<unknown>>(launchHandler, {
        method: 'POST',
        path: '/token-launcher/launch',
        headers: { authorization: `Bearer ${await idpToken(who)}` },
        body: { gameId, emissionDays: 7 },
      });
    const stranger = await launch(strangerName);
    expect(stranger.status).toBe(403);
    expect(stranger.body.error?.code).toBe('GRACE_PERIOD_RESTRICTED');
    const creator = await launch(name);
    expect(creator.body.error?.code).toBe('INSUFFICIENT_BALANCE');
    expect(dev.arcId).toBe(game?.creatorId);
  }, 120_000);
});

/** A launched coin (mint + supply in the custodial vault) whose game's airdrop token one holder (`a`) holds. */
const launchedCoin = async () => {
  const { signer: payer } = await newKeypair();
  await chain.airdrop(payer.address, 5n * SOL);
  const userId = randomUUID();
  const signer = keypairWalletSigner(() => payer);
  const sealed = await coin.generateLaunchKeys();
  const launch = { userId, keys: await coin.openLaunchKeys(sealed) };
  await steps.createCoinMint({ chain, signer }, launch, {
    name: 'Emit',
    symbol: 'EMIT',
    uri: 'https://a.example/e.json',
  });
  await steps.mintCoinSupply({ chain, signer }, launch);
  const holders = { a: Keypair.generate(), b: Keypair.generate() };
  const airdropMint = await createMint(chain, payer);
  const [ata] = await findAssociatedTokenPda({
    mint: airdropMint,
    owner: address(holders.a.publicKey.toBase58()),
    tokenProgram: TOKEN_PROGRAM_ADDRESS,
  });
  await chain.sendAndConfirm({
    feePayer: payer.address,
    instructions: [
      getCreateAssociatedTokenIdempotentInstruction({
        payer,
        ata,
        owner: address(holders.a.publicKey.toBase58()),
        mint: airdropMint,
      }),
      getMintToInstruction({ mint: airdropMint, token: ata, mintAuthority: payer, amount: 10n * TOKEN }),
    ],
  });
  const coinMint = sealed.coinMint;
  const { gameId } = await gameWithCoin({ coinMint }, airdropMint);
  await recordCompletedLaunch({
    gameId,
    userId,
    sealed,
    symbol: 'EMIT',
    name: 'Emit',
    uri: 'https://a.example/e.json',
  });
  // The snapshot taken at the end of the release window: the whole airdrop pool is released to the holders.
  const windowEnd = () => new Date('2031-03-08T00:00:00.000Z');
  expect((await buildSnapshot(coinMint, { ...builderDeps, now: windowEnd })).status).toBe('created');
  for (const h of Object.values(holders)) await chain.airdrop(h.publicKey.toBase58(), SOL);
  return { coinMint, gameId, holders };
};

describe('claims of airdrop + emission on the local chain', () => {
  type Built = {
    transactions: string[];
    amount: string;
    claimNumber: number;
    receiptAddress: string;
    allocated: string;
    claimedBefore: string;
    lastValidBlockHeight: number;
  };
  type Status = {
    canClaim: boolean;
    state: string;
    amount: string | null;
    allocated: string;
    claimed: string | null;
    claimable: string;
    claims: number;
    nextSettlement: { day: string } | null;
  };
  let ctx: Awaited<ReturnType<typeof launchedCoin>>;
  beforeAll(async () => {
    ctx = await launchedCoin();
  }, 120_000);

  const build = (participant: string) =>
    invoke<Body<Built>>(buildClaimHandler, {
      method: 'POST',
      path: '/token-launcher/exercise-claim/build-transactions',
      body: { gtokenAddress: ctx.coinMint, participant },
    });
  const status = async (w: string) =>
    (
      await invoke<Body<Status>>(claimStatusHandler, {
        method: 'GET',
        path: `/token-launcher/exercise-claim/${ctx.coinMint}/status/${w}`,
        pathParameters: { gtokenAddress: ctx.coinMint, wallet: w },
      })
    ).body.data;
  const send = async (built: Built, signer: Keypair) => {
    const tx = Transaction.from(Buffer.from(built.transactions[0] as string, 'base64'));
    tx.partialSign(signer);
    const raw = tx.serialize();
    const signature = await client.sendRawTransaction(raw, { preflightCommitment: 'confirmed' });
    return chain.confirm(
      { signature, lastValidBlockHeight: built.lastValidBlockHeight },
      { raw: raw.toString('base64') as Base64EncodedWireTransaction, timeoutMs: 20_000 },
    );
  };
  const balance = (owner: Keypair) =>
    chain.getTokenAccountBalance(
      getAssociatedTokenAddressSync(
        new PublicKey(ctx.coinMint),
        owner.publicKey,
        false,
        TOKEN_2022_PROGRAM_ID,
      ).toBase58(),
    );

  it('pays the whole allocation, then only what later days add; concurrent claims land once', async () => {
    const { a, b } = ctx.holders;
    const [wa, wb] = [a.publicKey.toBase58(), b.publicKey.toBase58()];
    const players = [
      { userId: 'a', wallet: wa, points: 1 },
      { userId: 'b', wallet: wb, points: 1 },
    ];
    expect(await status(wb)).toMatchObject({ state: 'not_eligible', canClaim: false, allocated: '0' });
    expect((await build(wb)).status).toBe(404);

    await settleCoinEmission({ gameId: ctx.gameId, day: dayOf(0), players }, deps);
    const day0 = EMISSION_POOL / 7n;
    const half0 = day0 / 2n; // two equal players: ⌊share / 2⌋ and the remainder
    const ea0 = await emissionOf(wa, ctx.coinMint);
    expect([half0, half0 + 1n]).toContain(ea0);
    const first = await status(wa);
    expect(first).toMatchObject({
      canClaim: true,
      state: 'claimable',
      allocated: (AIRDROP_POOL + ea0).toString(),
      claimable: (AIRDROP_POOL + ea0).toString(),
      claimed: '0',
      claims: 0,
      nextSettlement: { day: dayOf(1) },
    });

    const built = await build(wa);
    expect(built.body.data).toMatchObject({ claimNumber: 0, amount: (AIRDROP_POOL + ea0).toString() });
    await send(built.body.data, a);
    expect(await balance(a)).toBe(AIRDROP_POOL + ea0);
    expect(await status(wa)).toMatchObject({ state: 'claimed', claimable: '0', claims: 1 });
    const nothing = await build(wa);
    expect(nothing.status).toBe(409);

    // Day 1 settles: a may claim again, only day 1's share. Two concurrent builds are one claim (number, amount,
    // receipt), each built for its caller; both sent at once, the claim pays once.
    await settleCoinEmission({ gameId: ctx.gameId, day: dayOf(1), players }, deps);
    const ea1 = (await emissionOf(wa, ctx.coinMint)) - ea0;
    const [x, y] = await Promise.all([build(wa), build(wa)]);
    expect(x.body.data).toMatchObject({ claimNumber: 1, amount: ea1.toString() });
    expect(y.body.data).toMatchObject({
      claimNumber: 1,
      amount: ea1.toString(),
      receiptAddress: x.body.data.receiptAddress,
    });
    const landed = await Promise.allSettled([send(x.body.data, a), send(y.body.data, a)]);
    expect(landed.filter((r) => r.status === 'fulfilled').length).toBeGreaterThanOrEqual(1);
    expect(await balance(a)).toBe(AIRDROP_POOL + ea0 + ea1);
    expect(await status(wa)).toMatchObject({
      state: 'claimed',
      claims: 2,
      claimed: (AIRDROP_POOL + ea0 + ea1).toString(),
      claimable: '0',
    });

    // b: emission only, two days in one claim.
    const eb = await emissionOf(wb, ctx.coinMint);
    const builtB = await build(wb);
    expect(builtB.body.data).toMatchObject({ claimNumber: 0, amount: eb.toString() });
    await send(builtB.body.data, b);
    expect(await balance(b)).toBe(eb);
    expect(eb + ea0 + ea1).toBe((EMISSION_POOL * 2n) / 7n);

    expect(await claimableCoinAllocations(wa, allocationDeps)).toEqual([
      {
        gameId: ctx.gameId,
        gtokenAddress: ctx.coinMint,
        allocated: (AIRDROP_POOL + ea0 + ea1).toString(),
        claimed: (AIRDROP_POOL + ea0 + ea1).toString(),
        claimable: '0',
      },
    ]);
  }, 120_000);
});
