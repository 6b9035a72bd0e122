// The daily settlement against the local stack: a seeded game with a purchase and a day of play settles, the
// creators' wallets and the top players receive SOL on the local chain (what cannot land carries over), a
// second settlement pays nothing, the figures, GET /rewards/game-rewards-pool and GET /rewards/me agree with the
// chain, invalidated sessions are not paid, and the emission port receives the frozen players once.
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import {
  address,
  type Base64EncodedWireTransaction,
  createSolanaRpc,
  generateKeyPairSigner,
  type Signature,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as poolHandler } from '../../functions/rewards/get-game-rewards-pool.js';
import { handler as myRewardsHandler } from '../../functions/rewards/get-my-rewards.js';
import { sideEffects as settleDeps } from '../../functions/settlement/settle-game-days.js';
import { dynamo } from '../../lib/adapters/dynamodb.js';
import { memoInstruction, signPlan, wireTransaction, withComputeBudget } from '../../lib/chain/index.js';
import { getGame } from '../../lib/games/repository.js';
import { defaultSessionId } from '../../lib/play/keys.js';
import { invalidateSessions } from '../../lib/play/protocol/invalidate.js';
import { rewardsKeys, rewardsTable } from '../../lib/rewards/keys.js';
import { usdOf } from '../../lib/rewards/pricing.js';
import type { FrozenPlayer, Settlement } from '../../lib/rewards/settlement/model.js';
import { getStatement } from '../../lib/rewards/settlement/repository.js';
import { type SettlementDeps, settleGameDay } from '../../lib/rewards/settlement/settle.js';
import {
  checkStatement,
  lineProof,
  statementRoot,
  verifyLineProof,
} from '../../lib/rewards/settlement/statement.js';
import { invoke } from '../helpers/http.js';
import { idpToken } from '../helpers/idp.js';
import {
  carryOf,
  chain,
  commitmentFee,
  commitmentOf,
  payoutOf,
  randomDay,
  type SeededDay,
  SOL,
  seedDay,
} from '../helpers/settlement.js';

const rawRpc = () => createSolanaRpc(process.env.SOLANA_RPC_URL ?? '');

const getPoolItem = async (gameId: string) =>
  (
    await dynamo().send(
      new QueryCommand({
        TableName: rewardsTable(),
        KeyConditionExpression: 'pk = :pk AND sk = :sk',
        ExpressionAttributeValues: { ':pk': rewardsKeys.pool(gameId).pk, ':sk': 'POOL' },
      }),
    )
  ).Items?.[0] ?? {};

const balances = (addresses: string[]) => Promise.all(addresses.map((a) => chain.getBalance(a)));

describe('settleGameDay', () => {
  let seeded: SeededDay;
  let emissionCalls: Array<{ gameId: string; day: string; players: FrozenPlayer[] }>;
  let deps: SettlementDeps;
  let first: Settlement;
  let before: bigint[];
  let vaultBefore: bigint;

  beforeAll(async () => {
    seeded = await seedDay({ day: randomDay(), playerCount: 12 });
    emissionCalls = [];
    deps = {
      ...settleDeps,
      now: () => seeded.after,
      settleCoinEmission: async (input) => {
        emissionCalls.push(input);
      },
    };
    // The day's best player cheated: the developer invalidates the session before the settlement.
    const cheater = seeded.players[0];
    if (!cheater) throw new Error('no players');
    await invalidateSessions(
      { scheme: 'hmac', userId: seeded.dev.arcId, apiKey: seeded.dev.apiKey },
      { gameId: seeded.gameId, sessionIds: [defaultSessionId(seeded.day, cheater.arcId)] },
    );
    before = await balances([...seeded.creators, ...seeded.players].map((m) => m.wallet));
    vaultBefore = await chain.getBalance(seeded.vaultAddress);
    const outcome = await settleGameDay(seeded.gameId, seeded.day, deps);
    if (outcome.status !== 'settled') throw new Error('not settled');
    first = outcome.settlement;
  }, 120_000);

  it('waits for the settlement delay', async () => {
    const other = await seedDay({ day: randomDay(), playerCount: 1, split: false });
    // One hour after the day ended: within the default 6-hour delay.
    const early = new Date(Date.parse(`${other.day}T00:00:00.000Z`) + 86_400_000 + 3_600_000);
    const outcome = await settleGameDay(other.gameId, other.day, { ...settleDeps, now: () => early });
    expect(outcome).toMatchObject({ status: 'notDue' });
    // Forced (npm run settle), the same day settles at once.
    const forced = await settleGameDay(
      other.gameId,
      other.day,
      { ...settleDeps, now: () => early },
      { force: true },
    );
    expect(forced).toMatchObject({ status: 'settled', replayed: false });
  }, 60_000);

  it('pays 1/30 of the pool: 20 % to the creators by the effective split, 80 % to the top 10 by rank', async () => {
    expect(first.status).toBe('settled');
    const undistributed = BigInt(first.undistributedBefore);
    const rent = await chain.getMinimumBalanceForRentExemption(0);
    const budget = (undistributed - rent) / 30n;
    expect(BigInt(first.creatorPart)).toBe((budget * 2_000n) / 10_000n);
    expect(BigInt(first.playerPart)).toBe((budget * 8_000n) / 10_000n);
    const [dev, co] = seeded.creators;
    const line = (arcId: string | undefined) => first.lines.find((l) => l.arcId === arcId);
    expect(BigInt(line(dev?.arcId)?.share ?? -1)).toBe((BigInt(first.creatorPart) * 6_000n) / 10_000n);
    expect(BigInt(line(co?.arcId)?.share ?? -1)).toBe((BigInt(first.creatorPart) * 4_000n) / 10_000n);
    // The invalidated player is not on the board; the next ten are, by rank.
    expect(line(seeded.players[0]?.arcId)).toBeUndefined();
    const rankBps = [2_500, 1_800, 1_300, 1_000, 800, 700, 600, 500, 450, 350];
    seeded.players.slice(1, 11).forEach((p, i) => {
      expect(line(p.arcId)?.rank).toBe(i + 1);
      expect(BigInt(line(p.arcId)?.share ?? -1)).toBe(
        (BigInt(first.playerPart) * BigInt(rankBps[i] ?? 0)) / 10_000n,
      );
    });
    expect(line(seeded.players[11]?.arcId)).toBeUndefined();
    expect(BigInt(first.allocated)).toBe(first.lines.reduce((sum, l) => sum + BigInt(l.share), 0n));
  });

  it('records its statement with the intent: the rules give every line again, its root is the intent’s', async () => {
    const stored = await getStatement(seeded.gameId, seeded.day);
    if (!stored) throw new Error('no statement');
    expect(first.statement).toEqual({ version: 1, root: stored.root });
    expect(await statementRoot(stored.statement)).toBe(stored.root);
    expect((await checkStatement(stored.statement, stored.root)).filter((c) => !c.ok)).toEqual([]);
    // What the run read: the pool it allocated from, the board without the invalidated player, down to rank 10.
    expect(stored.statement.inputs.undistributed).toBe(first.undistributedBefore);
    expect(stored.statement.inputs.standings.map((s) => s.arcId)).toEqual(
      seeded.players.slice(1, 11).map((p) => p.arcId),
    );
    expect(stored.statement.lines).toEqual(first.lines);
    for (const line of first.lines) {
      const proved = await lineProof(stored.statement, line.arcId);
      expect(await verifyLineProof(line, proved?.proof ?? [], stored.root)).toBe(true);
    }
  });

  it('commits the root on chain before its first transfer: one memo, signed by the vault, landed first', async () => {
    const commitment = await commitmentOf(seeded.gameId, seeded.day);
    expect(commitment).toMatchObject({
      status: 'confirmed',
      memo: `arcadia:statement:v1:${seeded.gameId}:${seeded.day}:${first.statement?.root}`,
      previousSignatures: [],
    });
    const tx = await rawRpc()
      .getTransaction(commitment?.signature as Signature, {
        encoding: 'json',
        maxSupportedTransactionVersion: 0,
      })
      .send();
    if (!tx) throw new Error('the commitment is not on chain');
    expect(tx.meta?.err).toBeNull();
    // The vault is the fee payer, the one signer, and the Memo program logged the memo it signed.
    expect(tx.transaction.message.accountKeys[0]).toBe(seeded.vaultAddress);
    expect(tx.transaction.signatures).toHaveLength(1);
    expect(tx.meta?.logMessages?.join('\n')).toContain(commitment?.memo);
    // Before every transfer: the vault's history lists its transactions newest first, in block order within a slot.
    const history = (await rawRpc().getSignaturesForAddress(address(seeded.vaultAddress)).send()).map(
      (entry) => entry.signature as string,
    );
    const committedAt = history.indexOf(commitment?.signature ?? '');
    expect(committedAt).toBeGreaterThanOrEqual(0);
    for (const line of first.lines.filter((l) => BigInt(l.send) > 0n)) {
      const record = await payoutOf(seeded.gameId, seeded.day, line.arcId);
      const paidAt = history.indexOf(record?.signature ?? '');
      expect(paidAt).toBeGreaterThanOrEqual(0);
      expect(paidAt).toBeLessThan(committedAt);
    }
  });

  it('moves the SOL on chain: each landed line exactly once, what cannot land carried over', async () => {
    const members = [...seeded.creators, ...seeded.players];
    const after = await balances(members.map((m) => m.wallet));
    let landed = 0;
    let carried = 0;
    for (const [i, member] of members.entries()) {
      const line = first.lines.find((l) => l.arcId === member.arcId);
      const gained = (after[i] ?? 0n) - (before[i] ?? 0n);
      expect(gained, member.arcId).toBe(BigInt(line?.send ?? 0));
      if (line && BigInt(line.send) > 0n) landed++;
      if (line && BigInt(line.carryOut) > 0n) {
        carried++;
        expect(await carryOf(seeded.gameId, member.arcId)).toBe(BigInt(line.carryOut));
      }
    }
    // Both creators (funded) and the big shares land; small shares to accounts that do not exist carry over.
    expect(landed).toBeGreaterThanOrEqual(4);
    expect(carried).toBeGreaterThanOrEqual(1);
    const paid = first.lines.reduce((sum, l) => sum + BigInt(l.send) + BigInt(l.fee), 0n);
    // The run's commitment (its statement's root on chain) is the vault's one other transaction.
    const commitment = await commitmentFee(seeded.gameId, seeded.day);
    expect(commitment).toBe(5_000n);
    expect(await chain.getBalance(seeded.vaultAddress)).toBe(vaultBefore - paid - commitment);
  });

  it('pays nothing the second time (replay), and calls the emission port once with the frozen players', async () => {
    const members = [...seeded.creators, ...seeded.players];
    const now = await balances(members.map((m) => m.wallet));
    const again = await settleGameDay(seeded.gameId, seeded.day, deps);
    expect(again).toMatchObject({ status: 'settled', replayed: true });
    expect(await balances(members.map((m) => m.wallet))).toEqual(now);
    expect(emissionCalls).toHaveLength(1);
    expect(emissionCalls[0]?.players.map((p) => p.userId)).toEqual(
      seeded.players.slice(1).map((p) => p.arcId),
    );
    expect(emissionCalls[0]?.players[0]).toEqual({
      userId: seeded.players[1]?.arcId,
      wallet: seeded.players[1]?.wallet,
      points: seeded.points[1],
    });
  });

  it('keeps the books: inflow = paid + fees + carried + undistributed; figures and the pool view agree', async () => {
    const pool = await getPoolItem(seeded.gameId);
    const inflow = BigInt(pool.totalInflowLamports);
    const allocated = BigInt(pool.totalAllocatedLamports);
    const paid = BigInt(pool.totalPaidLamports);
    const fees = BigInt(pool.totalFeesLamports);
    const carried = first.lines.reduce((sum, l) => sum + BigInt(l.carryOut), 0n);
    // The run's allocation, and its commitment's fee (allocated and booked as a fee when it landed).
    expect(allocated).toBe(BigInt(first.allocated) + (await commitmentFee(seeded.gameId, seeded.day)));
    expect(paid + fees + carried).toBe(allocated);
    const vault = await chain.getBalance(seeded.vaultAddress);
    expect(vault).toBe(inflow - paid - fees);
    const game = await getGame(seeded.gameId);
    const usd = first.lines.reduce((sum, l) => sum + usdOf(BigInt(l.send), 150), 0);
    expect(game?.totalRewardsAllocatedUsd).toBeCloseTo(usd, 2);
    expect(game?.totalRewardsPoolValueUsd).toBe(usdOf(vault, 150));
    expect(game?.estimatedDailyRewardsUsd).toBe(usdOf((inflow - allocated - 890_880n) / 30n, 150));
    const res = await invoke<{
      data: {
        totalPaidLamports: string;
        balanceLamports: string;
        recentSettlements: Array<{
          day: string;
          status: string;
          allocatedLamports: string;
          recipients: Array<{
            wallet: string | null;
            sentLamports: string;
            status: string;
            signature: string | null;
          }>;
        }>;
      };
    }>(poolHandler, {
      method: 'GET',
      path: `/rewards/game-rewards-pool/${seeded.gameId}`,
      pathParameters: { gameId: seeded.gameId },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.totalPaidLamports).toBe(paid.toString());
    expect(res.body.data.balanceLamports).toBe(vault.toString());
    const [latest] = res.body.data.recentSettlements;
    expect(latest).toMatchObject({ day: seeded.day, status: 'settled', allocatedLamports: first.allocated });
    for (const recipient of latest?.recipients ?? []) {
      if (recipient.status !== 'confirmed') continue;
      expect(recipient.signature).toBeTruthy();
      const status = await chain.getSignatureStatus(String(recipient.signature));
      expect(['confirmed', 'finalized']).toContain(status.status);
    }
  });

  it('GET /rewards/me lists the caller’s payouts, paginated, as the chain shows them', async () => {
    const top = seeded.players[1];
    if (!top) throw new Error('no player');
    const token = await idpToken(String(top.auth.subject).replace('did:local:', ''));
    const res = await invoke<{
      data: {
        wallet: string;
        payouts: Array<{
          gameId: string;
          day: string;
          sentLamports: string;
          signature: string;
          status: string;
          rank: number;
        }>;
      };
      meta: { total: number; limit: number; offset: number };
    }>(myRewardsHandler, {
      method: 'GET',
      path: '/rewards/me',
      headers: { authorization: `Bearer ${token}` },
      query: { limit: '5' },
    });
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ limit: 5, offset: 0, total: 1 });
    const [payout] = res.body.data.payouts;
    const line = first.lines.find((l) => l.arcId === top.arcId);
    expect(payout).toMatchObject({
      gameId: seeded.gameId,
      day: seeded.day,
      rank: 1,
      status: 'confirmed',
      sentLamports: line?.send,
    });
    expect(res.body.data.wallet).toBe(top.wallet);
    const status = await chain.getSignatureStatus(payout?.signature ?? '');
    expect(['confirmed', 'finalized']).toContain(status.status);
    const unauthenticated = await invoke(myRewardsHandler, { method: 'GET', path: '/rewards/me' });
    expect(unauthenticated.status).toBe(401);
    const bad = await invoke(myRewardsHandler, {
      method: 'GET',
      path: '/rewards/me',
      headers: { authorization: `Bearer ${token}` },
      query: { limit: '0' },
    });
    expect(bad.status).toBe(400);
  });
});

describe('settleGameDay under congestion', () => {
  it('pays the going priority fee out of each due, books what the chain charged, and conserves every lamport', async () => {
    const seeded = await seedDay({ day: randomDay(), playerCount: 4 });
    const deps: SettlementDeps = {
      ...settleDeps,
      now: () => seeded.after,
      settleCoinEmission: async () => {},
    };
    // Others bid 50 000 micro-lamports a unit writing the vault, in most recent slots (0-lamport transfers, so
    // the vault's balance is untouched): its recent prioritization fees are no longer zero.
    const signer = await generateKeyPairSigner();
    await chain.airdrop(signer.address, SOL);
    const price = 50_000n;
    // Sent without waiting for each to confirm, a few a slot (a memo tells the copies apart), for ~60 slots.
    const sends: Array<Promise<unknown>> = [];
    for (let i = 0; i < 100; i++) {
      const plan = withComputeBudget(
        {
          feePayer: signer.address,
          instructions: [
            getTransferSolInstruction({
              source: signer,
              destination: address(seeded.vaultAddress),
              amount: 0n,
            }),
            memoInstruction(`congestion ${i}`),
          ],
        },
        { units: 2_000, microLamports: price },
      );
      const tx = await signPlan(plan, await chain.getLatestBlockhash());
      sends.push(
        rawRpc()
          .sendTransaction(wireTransaction(tx) as Base64EncodedWireTransaction, { encoding: 'base64' })
          .send(),
      );
      await new Promise((r) => setTimeout(r, 250));
    }
    await Promise.all(sends);
    const vaultBefore = await chain.getBalance(seeded.vaultAddress);
    const outcome = await settleGameDay(seeded.gameId, seeded.day, deps);
    if (outcome.status !== 'settled') throw new Error('not settled');
    const landed = outcome.settlement.lines.filter((l) => BigInt(l.send) > 0n);
    expect(landed.length).toBeGreaterThanOrEqual(2);
    let paid = 0n;
    for (const line of landed) {
      const record = await payoutOf(seeded.gameId, seeded.day, line.arcId);
      expect(record?.status).toBe('confirmed');
      const fee = BigInt(record?.fee ?? 0);
      // What was sent and the fee still make up the frozen due; the fee is what the chain charged.
      expect(BigInt(record?.send ?? 0) + fee).toBe(BigInt(line.send) + BigInt(line.fee));
      expect(fee).toBeGreaterThan(5_000n);
      const tx = await rawRpc()
        .getTransaction(record?.signature as Signature, { encoding: 'json' })
        .send();
      expect(tx?.meta?.fee).toBe(fee);
      paid += BigInt(record?.send ?? 0) + fee;
    }
    const commitment = await commitmentFee(seeded.gameId, seeded.day);
    expect(commitment).toBeGreaterThan(5_000n);
    expect(await chain.getBalance(seeded.vaultAddress)).toBe(vaultBefore - paid - commitment);
    const pool = await getPoolItem(seeded.gameId);
    const carried = outcome.settlement.lines.reduce((sum, l) => sum + BigInt(l.carryOut), 0n);
    expect(BigInt(pool.totalPaidLamports) + BigInt(pool.totalFeesLamports) + carried).toBe(
      BigInt(pool.totalAllocatedLamports),
    );
    expect(await chain.getBalance(seeded.vaultAddress)).toBe(
      BigInt(pool.totalInflowLamports) - BigInt(pool.totalPaidLamports) - BigInt(pool.totalFeesLamports),
    );
  }, 120_000);
});
