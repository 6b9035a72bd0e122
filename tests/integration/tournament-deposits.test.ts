// Funding a tournament period with a studio's deposit, through the local stack and the local chain: the deposit is
// sent from the studio's embedded wallet once (a retry replays it), held on the pool's books as earmarked (the daily
// payouts never take it), and at the period's close the pot is the pool share plus the fund; what the prizes do not
// take goes back to the pool, as does a voided period's fund and a deposit landing after the close. A stranger's
// transfer into the vault, whatever its memo, is never a deposit.
import { randomUUID } from 'node:crypto';
import { getTransferSolInstruction } from '@solana-program/system';
import { describe, expect, it } from 'vitest';
import {
  sideEffects as depositDeps,
  handler as depositHandler,
} from '../../functions/tournaments/deposit-tournament-funds.js';
import { address, ChainError, memoInstruction, newKeypair } from '../../lib/chain/index.js';
import { poolBooks } from '../../lib/rewards/payout.js';
import { poolHistory } from '../../lib/rewards/pools/history.js';
import { payoutRecords } from '../../lib/rewards/settlement/repository.js';
import { depositMemo } from '../../lib/rewards/vault.js';
import {
  cancelTournament,
  createTournament,
  depositToTournament,
  duePeriodCloses,
  periodResults,
} from '../../lib/tournaments/index.js';
import { loadWallet } from '../../lib/user/wallet.js';
import { invoke } from '../helpers/http.js';
import { close, type Fixture, fixture, iso, POOL_BPS, runOf } from '../helpers/prizes.js';
import { chain, commitmentFee, SOL } from '../helpers/settlement.js';
import { createDeveloper, hmacHeaders } from '../helpers/users.js';

const DEPOSIT = 50_000_000n;
const MAX_FEE = 100_000n;

type DepositBody = { lamports: string; periodId?: string; idempotencyKey: string };
type DepositAnswer = {
  data: {
    depositId: string;
    status: string;
    credited: string | null;
    replayed: boolean;
    signature: string | null;
  };
  error: { code: string; details: Array<{ path: string }> };
};

const depositPath = (gameId: string, tournamentId: string) =>
  `/tournaments/${gameId}/${tournamentId}/deposits`;

/** POST …/deposits through its handler, signed by `dev` (the real clock: the fixtures' periods are ahead of it). */
const post = (
  f: Fixture,
  body: DepositBody | Record<string, unknown>,
  dev = f.seeded.dev,
  tournamentId = f.tournamentId,
) => {
  const path = depositPath(f.seeded.gameId, tournamentId);
  const raw = JSON.stringify(body);
  return invoke<DepositAnswer>(depositHandler, {
    method: 'POST',
    path,
    pathParameters: { gameId: f.seeded.gameId, tournamentId },
    headers: { ...hmacHeaders(dev, 'POST', path, { body: raw }), 'content-type': 'application/json' },
    rawBody: raw,
  });
};

const devWallet = async (f: Fixture) => {
  const wallet = (await loadWallet(f.seeded.dev.arcId))?.address;
  if (!wallet) throw new Error('the developer has no wallet');
  return wallet;
};

const books = async (gameId: string) => {
  const b = await poolBooks(gameId);
  if (!b) throw new Error('no pool');
  return b;
};

/**
 * The pool's history agrees with its books: the newest day ends at the totals (undistributed net of the deposits
 * held), and working back through every day's moves, deposits and fund releases included, reaches zero.
 */
const historyAgrees = async (f: Fixture) => {
  const b = await books(f.seeded.gameId);
  const rows: Awaited<ReturnType<typeof poolHistory>>['data'] = [];
  let cursor: string | undefined;
  do {
    const page = await poolHistory(f.devAuth, f.seeded.gameId, { limit: 100, ...(cursor ? { cursor } : {}) });
    rows.push(...page.data);
    cursor = page.meta.nextCursor ?? undefined;
  } while (cursor);
  const newest = rows[0];
  expect(newest?.endOfDay).toMatchObject({
    totalInflowLamports: b.inflow.toString(),
    totalEarmarkedLamports: b.earmarked.toString(),
    undistributedLamports: b.undistributed.toString(),
  });
  const sum = (pick: (r: (typeof rows)[number]) => string) => rows.reduce((t, r) => t + BigInt(pick(r)), 0n);
  expect(sum((r) => r.inflowLamports)).toBe(b.inflow);
  expect(sum((r) => r.earmarkedLamports)).toBe(b.earmarked);
  expect(sum((r) => r.allocatedLamports)).toBe(b.allocated);
};

const results = (f: Fixture) =>
  periodResults(
    f.devAuth,
    { gameId: f.seeded.gameId, tournamentId: f.tournamentId, periodId: f.periodId },
    new Date(f.closesAt.getTime() + 60_000),
  );

describe('tournament deposits', () => {
  it('funds a period once: the pot is the pool share plus the deposit, the unpaid rest goes back to the pool, and a stranger’s transfer with a deposit memo counts for nothing', async () => {
    // Two players: the table pays ranks 1–3, so rank 3's share is never paid.
    const f = await fixture({ playerCount: 2 });
    const { gameId } = f.seeded;
    const wallet = await devWallet(f);
    await chain.airdrop(wallet, SOL / 10n);
    const before = await books(gameId);
    const walletBefore = await chain.getBalance(wallet);
    const key = randomUUID();

    const made = await post(f, { lamports: DEPOSIT.toString(), idempotencyKey: key });
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({ status: 'completed', credited: 'period', replayed: false });
    expect(made.body.data.signature).toEqual(expect.any(String));
    const charged = walletBefore - (await chain.getBalance(wallet));
    expect(charged).toBeGreaterThanOrEqual(DEPOSIT);
    expect(charged).toBeLessThanOrEqual(DEPOSIT + MAX_FEE);

    // Replayed: the same deposit, nothing charged again; the same key for another amount is refused.
    const again = await post(f, { lamports: DEPOSIT.toString(), idempotencyKey: key });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ depositId: made.body.data.depositId, replayed: true });
    const other = await post(f, { lamports: (DEPOSIT + 1n).toString(), idempotencyKey: key });
    expect(other.status).toBe(409);
    expect(walletBefore - (await chain.getBalance(wallet))).toBe(charged);

    // On the books: paid in and earmarked, so the pool's distributable lamports (the daily payouts') are unchanged.
    const funded = await books(gameId);
    expect(funded.inflow - before.inflow).toBe(DEPOSIT);
    expect(funded.earmarked - before.earmarked).toBe(DEPOSIT);
    expect(funded.undistributed).toBe(before.undistributed);

    // The attacker sends SOL to the vault with the deposit's memo: neither the fund nor the books move.
    const { signer: attacker } = await newKeypair();
    await chain.airdrop(attacker.address, SOL);
    await chain.sendAndConfirm({
      feePayer: attacker.address,
      instructions: [
        getTransferSolInstruction({
          source: attacker,
          destination: address(f.seeded.vaultAddress),
          amount: SOL / 2n,
        }),
        memoInstruction(depositMemo(made.body.data.depositId)),
      ],
    });
    expect(await books(gameId)).toEqual(funded);
    expect((await results(f)).fund).toMatchObject({ depositedLamports: DEPOSIT.toString(), deposits: 1 });

    const members = f.seeded.players;
    const balancesBefore = await Promise.all(members.map((m) => chain.getBalance(m.wallet)));
    expect(await close(f)).toBe('closed');
    const run = await runOf(f);
    const rent = await chain.getMinimumBalanceForRentExemption(0);
    const poolPart = ((before.undistributed - rent) * BigInt(POOL_BPS)) / 10_000n;
    const pot = poolPart + DEPOSIT;
    expect(run.prize.potLamports).toBe(pot.toString());
    const allocated = BigInt(run.allocated);
    // Ranks 1 and 2 were reached: 50 % + 20 % of the pot.
    expect(allocated).toBe((pot * 5_000n) / 10_000n + (pot * 2_000n) / 10_000n);
    const used = allocated < DEPOSIT ? allocated : DEPOSIT;
    expect(run.prize).toMatchObject({ fundLamports: DEPOSIT.toString(), fundUsedLamports: used.toString() });

    // Each winner was paid its line once, or it carried.
    const records = await payoutRecords(gameId, run.day, f.message);
    expect(records).toHaveLength(2);
    for (const [i, m] of members.entries()) {
      const record = records.find((r) => r.arcId === m.arcId);
      const gained = (await chain.getBalance(m.wallet)) - (balancesBefore[i] ?? 0n);
      expect(gained).toBe(record?.status === 'confirmed' ? BigInt(record.send) : 0n);
    }
    // The books: the earmark ended; the pool allocated the prizes (and the run's commitment fee) and got back what
    // the fund did not pay.
    const closed = await books(gameId);
    const commitment = await commitmentFee(gameId, '', f.message);
    expect(commitment).toBeGreaterThan(0n);
    expect(closed.earmarked).toBe(before.earmarked);
    expect(closed.allocated - funded.allocated).toBe(allocated + commitment);
    expect(closed.undistributed).toBe(before.undistributed - allocated - commitment + DEPOSIT);
    expect((await results(f)).fund).toMatchObject({
      depositedLamports: DEPOSIT.toString(),
      usedLamports: used.toString(),
      releasedLamports: (DEPOSIT - used).toString(),
      frozenAt: expect.any(String),
    });

    // Replayed close: nothing moves; the pool's history agrees with its books.
    expect(await close(f)).toBe('closed');
    expect(await books(gameId)).toEqual(closed);
    await historyAgrees(f);
  }, 180_000);

  it('a deposit that lands after the close goes to the rewards pool, never into a second pot', async () => {
    const f = await fixture({ playerCount: 2 });
    const { gameId } = f.seeded;
    await chain.airdrop(await devWallet(f), SOL / 10n);
    const before = await books(gameId);
    const body = { lamports: DEPOSIT, idempotencyKey: randomUUID() };
    // The transfer lands but its confirmation is lost: the deposit stays pending (its signature recorded).
    const lost = await depositToTournament(f.devAuth, f.message, body, {
      ...depositDeps,
      chain: {
        ...depositDeps.chain,
        sendAndConfirm: async (plan, options) => {
          await depositDeps.chain.sendAndConfirm(plan, options);
          throw new ChainError('CONFIRM_TIMEOUT', 'lost answer (injected)');
        },
      },
    });
    expect(lost.deposit).toMatchObject({ status: 'pending', credited: null });
    expect(lost.deposit.signature).toEqual(expect.any(String));

    // The period closes without it: its fund is frozen at 0.
    expect(await close(f)).toBe('closed');
    expect((await runOf(f)).prize.fundLamports).toBe('0');
    const closed = await books(gameId);

    // The retry (after the period's end) finds the transfer landed: the pool's, not the closed period's.
    const retried = await depositToTournament(f.devAuth, f.message, body, {
      ...depositDeps,
      now: () => new Date(f.closesAt.getTime() + 60_000),
    });
    expect(retried).toMatchObject({ created: false, deposit: { status: 'completed', credited: 'pool' } });
    const after = await books(gameId);
    expect(after.inflow - closed.inflow).toBe(DEPOSIT);
    expect(after.earmarked).toBe(before.earmarked);
    expect(after.undistributed - closed.undistributed).toBe(DEPOSIT);
    expect((await results(f)).fund.depositedLamports).toBe('0');
    await historyAgrees(f);
  }, 180_000);

  it('a period nobody entered still closes, and a cancelled tournament’s fund goes back to the pool whole', async () => {
    const f = await fixture({ playerCount: 1 });
    const { gameId } = f.seeded;
    await chain.airdrop(await devWallet(f), SOL / 10n);
    // A second tournament of the same game, nobody ever enters: the deposit makes its period close anyway.
    const start = new Date(f.endsAt.getTime() + 86_400_000);
    const empty = await createTournament(
      f.devAuth,
      gameId,
      {
        title: 'Empty cup',
        startsAt: iso(start),
        endsAt: iso(new Date(start.getTime() + 3_600_000)),
        prizes: [{ fromRank: 1, toRank: 1, bps: 10_000 }],
        prizePool: { rewardsPoolBps: 0 },
        payoutDelaySeconds: 60,
      },
      new Date(start.getTime() - 3_600_000),
    );
    const before = await books(gameId);
    const deposit = await post(
      f,
      { lamports: DEPOSIT.toString(), idempotencyKey: randomUUID() },
      f.seeded.dev,
      empty.tournamentId,
    );
    expect(deposit.status).toBe(201);
    const emptyClose = { gameId, tournamentId: empty.tournamentId, periodId: iso(start) };
    const due = new Date(start.getTime() + 3_600_000 + 61_000);
    expect(await duePeriodCloses(due)).toContainEqual(emptyClose);
    expect(await close({ ...f, message: emptyClose }, due)).toBe('closed');
    const afterEmpty = await books(gameId);
    expect(afterEmpty.earmarked).toBe(before.earmarked);
    expect(afterEmpty.allocated).toBe(before.allocated);
    expect(afterEmpty.undistributed - before.undistributed).toBe(DEPOSIT);

    // The fixture's tournament: funded, then cancelled before its period ends: voided, its whole fund released.
    const funded = await post(f, { lamports: DEPOSIT.toString(), idempotencyKey: randomUUID() });
    expect(funded.status).toBe(201);
    await cancelTournament(f.devAuth, gameId, f.tournamentId, new Date(f.endsAt.getTime() - 60_000));
    expect(await close(f)).toBe('closed');
    const run = await runOf(f);
    expect(run.prize).toMatchObject({ voided: 'cancelled', potLamports: '0', fundUsedLamports: '0' });
    const after = await books(gameId);
    expect(after.earmarked).toBe(before.earmarked);
    expect(after.allocated).toBe(afterEmpty.allocated);
    expect(after.undistributed - afterEmpty.undistributed).toBe(DEPOSIT);
    await historyAgrees(f);
  }, 180_000);

  it('refuses strangers, bad amounts, unfundable tournaments and ended or cancelled periods', async () => {
    const f = await fixture({ playerCount: 1 });
    const stranger = await createDeveloper();
    const body = { lamports: DEPOSIT.toString(), idempotencyKey: randomUUID() };
    expect((await post(f, body, stranger)).status).toBe(403);
    const path = depositPath(f.seeded.gameId, f.tournamentId);
    const anonymous = await invoke<DepositAnswer>(depositHandler, {
      method: 'POST',
      path,
      pathParameters: { gameId: f.seeded.gameId, tournamentId: f.tournamentId },
      headers: { 'content-type': 'application/json' },
      rawBody: JSON.stringify(body),
    });
    expect(anonymous.status).toBe(401);
    expect((await post(f, body, f.seeded.dev, randomUUID())).status).toBe(404);
    const tooSmall = await post(f, { ...body, lamports: '9999999' });
    expect(tooSmall.status).toBe(400);
    expect(tooSmall.body.error.details.map((d) => d.path)).toContain('lamports');
    const badKey = await post(f, { lamports: body.lamports, idempotencyKey: 'x' });
    expect(badKey.status).toBe(400);
    expect((await post(f, { ...body, periodId: '2020-01-01T00:00:00Z' })).status).toBe(404);

    // A wallet holding less than the deposit and its fee reserve: 400, nothing sent.
    const wallet = await devWallet(f);
    const balance = await chain.getBalance(wallet);
    expect(balance).toBeLessThan(DEPOSIT);
    const poor = await post(f, { ...body, idempotencyKey: randomUUID() });
    expect(poor.status).toBe(400);
    expect(poor.body.error.code).toBe('INSUFFICIENT_BALANCE');
    // After the period's end (controlled clock): 409, and nothing was sent.
    await expect(
      depositToTournament(
        f.devAuth,
        f.message,
        { lamports: DEPOSIT, periodId: f.periodId, idempotencyKey: randomUUID() },
        { ...depositDeps, now: () => new Date(f.endsAt.getTime() + 1_000) },
      ),
    ).rejects.toMatchObject({ code: 'TOURNAMENT_NOT_RUNNING' });
    // No prize table: nothing to fund.
    const plain = await createTournament(
      f.devAuth,
      f.seeded.gameId,
      {
        title: 'No prizes',
        startsAt: iso(new Date(f.endsAt.getTime() + 7_200_000)),
        endsAt: iso(new Date(f.endsAt.getTime() + 10_800_000)),
      },
      new Date(f.endsAt.getTime()),
    );
    const unfunded = await post(f, body, f.seeded.dev, plain.tournamentId);
    expect(unfunded.status).toBe(400);
    expect(unfunded.body.error.details.map((d) => d.path)).toContain('prizes');
    // Cancelled: 409.
    await cancelTournament(f.devAuth, f.seeded.gameId, f.tournamentId);
    const cancelled = await post(f, { ...body, idempotencyKey: randomUUID() });
    expect(cancelled.status).toBe(409);
    expect(cancelled.body.error.code).toBe('TOURNAMENT_NOT_RUNNING');
    expect(await chain.getBalance(wallet)).toBe(balance);
  }, 180_000);
});
