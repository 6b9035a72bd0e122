// Tournament prizes through the local stack and the local chain: a period closes after its end plus the payout
// delay (controlled clock), its board is frozen, its pot taken from the game's rewards pool's books and its prize
// table paid by the settlement machinery, once; the results, GET /rewards/me and the webhook events show it.
import { randomUUID } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as resultsHandler } from '../../functions/tournaments/get-tournament-period-results.js';
import { handler as periodsHandler } from '../../functions/tournaments/list-tournament-periods.js';
import { dynamo } from '../../lib/adapters/dynamodb.js';
import type { AuthContext } from '../../lib/core/auth.js';
import { playTable, tournamentPlayKeys } from '../../lib/play/index.js';
import { issueSessionToken } from '../../lib/play/protocol/token.js';
import { batchSavePoints } from '../../lib/play/saves/save.js';
import { myRewards } from '../../lib/rewards/index.js';
import { poolBooks } from '../../lib/rewards/payout.js';
import { getStatement, type PayoutRecord, payoutRecords } from '../../lib/rewards/settlement/repository.js';
import { checkStatement } from '../../lib/rewards/settlement/statement.js';
import {
  cancelTournament,
  periodResults,
  runningPeriods,
  scheduleTournamentCloses,
} from '../../lib/tournaments/index.js';
import { localDirectory } from '../../lib/user/directory.js';
import { queueDeliveries, relayPending } from '../../lib/webhooks/index.js';
import { invoke } from '../helpers/http.js';
import { close, type Fixture, fixture, iso, POOL_BPS, runOf } from '../helpers/prizes.js';
import { carryOf, chain, commitmentFee, SOL } from '../helpers/settlement.js';
import { createDeveloper, type Developer, hmacHeaders } from '../helpers/users.js';
import { type Receiver, startDeliveryWorker, verifiedPayloads, waitFor } from '../helpers/webhooks.js';

const resultsPath = (f: Fixture, tournamentId = f.tournamentId) =>
  `/tournaments/${f.seeded.gameId}/${tournamentId}/periods/${f.periodId}/results`;
/** GET …/results through its handler (real clock: for the auth checks, which come before the period's). */
const resultsOver = (f: Fixture, headers: Record<string, string>, tournamentId = f.tournamentId) =>
  invoke<{ error: { code: string } }>(resultsHandler, {
    method: 'GET',
    path: resultsPath(f, tournamentId),
    pathParameters: { gameId: f.seeded.gameId, tournamentId, periodId: f.periodId },
    headers,
  });
/** The results use case with the controlled clock (the fixtures' periods are in the future). */
const results = (f: Fixture, auth: AuthContext = f.devAuth) =>
  periodResults(
    auth,
    { gameId: f.seeded.gameId, tournamentId: f.tournamentId, periodId: f.periodId },
    new Date(f.closesAt.getTime() + 60_000),
  );

/**
 * A member received its prize once (its wallet gained what its record sent), or its prize carried (owed at its
 * next payout of the game), or it won nothing; returns what the prize cost the pool (sent + fee, or carried).
 */
const checkPaid = async (
  f: Fixture,
  record: PayoutRecord | undefined,
  arcId: string,
  gained: bigint,
  won: boolean,
): Promise<bigint> => {
  if (!won) {
    expect(record).toBeUndefined();
    expect(gained).toBe(0n);
    return 0n;
  }
  expect(record?.prize).toEqual({ tournamentId: f.tournamentId, periodId: f.periodId });
  if (record?.status === 'confirmed') {
    expect(gained).toBe(BigInt(record.send));
    return BigInt(record.send) + BigInt(record.fee);
  }
  expect(record?.status).toBe('carried');
  expect(gained).toBe(0n);
  expect(await carryOf(f.seeded.gameId, arcId)).toBe(BigInt(record?.due ?? -1));
  return BigInt(record?.due ?? 0);
};

let worker: Awaited<ReturnType<typeof startDeliveryWorker>>;
const receivers: Receiver[] = [];
let stranger: Developer;
beforeAll(async () => {
  [worker, stranger] = await Promise.all([startDeliveryWorker(), createDeveloper()]);
});
afterAll(async () => {
  await worker?.stop();
  await Promise.all(receivers.map((r) => r.close()));
});

/**
 * The run's statement, written with the intent: the board down to the last paid rank, the pool's books and the
 * studio's fund it read; the prize rules give the same lines; the intent carries its root.
 */
const expectStatement = async (
  f: Fixture,
  run: Awaited<ReturnType<typeof runOf>>,
  before: { inflow: bigint; allocated: bigint; earmarked: bigint },
) => {
  const stored = await getStatement(f.seeded.gameId, run.day, {
    tournamentId: f.tournamentId,
    periodId: f.periodId,
  });
  if (!stored) throw new Error('no statement');
  expect(run.statement).toEqual({ version: 1, root: stored.root });
  expect(stored.statement.run).toBe(`${f.tournamentId}/${f.periodId}`);
  expect(stored.statement.inputs.standings).toEqual(run.prize.results);
  expect(stored.statement.inputs.pool).toEqual({
    inflow: before.inflow.toString(),
    allocated: before.allocated.toString(),
    earmarked: before.earmarked.toString(),
  });
  expect((await checkStatement(stored.statement, stored.root)).filter((c) => !c.ok)).toEqual([]);
  expect(stored.statement.lines).toEqual(run.lines);
};

describe('tournament prizes', () => {
  it('pays the prize table once from the pool’s books (a stranger’s transfer into the vault changes nothing), with results, rewards and events', async () => {
    const f = await fixture({ subscribe: true });
    if (f.subscription) receivers.push(f.subscription.receiver);
    const { gameId } = f.seeded;
    const before = await poolBooks(gameId);
    if (!before) throw new Error('no pool');
    // The attacker: lamports sent straight to the vault are not the pool's inflow and never raise a prize.
    await chain.airdrop(f.seeded.vaultAddress, SOL);
    const members = f.seeded.players;
    const balancesBefore = await Promise.all(members.map((m) => chain.getBalance(m.wallet)));

    expect(await close(f, new Date(f.closesAt.getTime() - 1_000))).toBe('notDue');
    expect(await close(f)).toBe('closed');

    const run = await runOf(f);
    const rent = await chain.getMinimumBalanceForRentExemption(0);
    const pot = ((before.undistributed - rent) * BigInt(POOL_BPS)) / 10_000n;
    expect(run.status).toBe('settled');
    expect(run.prize.potLamports).toBe(pot.toString());
    expect(run.prize.results.map((r) => [r.rank, r.arcId, r.points])).toEqual(
      members.slice(0, 3).map((m, i) => [i + 1, m.arcId, 500 - i * 100]),
    );
    const shareOf = (rank: number) => (pot * BigInt(rank === 1 ? 5_000 : 2_000)) / 10_000n;
    expect(run.lines.map((l) => [l.rank, l.share])).toEqual(
      [1, 2, 3].map((rank) => [rank, shareOf(rank).toString()]),
    );

    await expectStatement(f, run, before);

    // Each winner received its line once (or it carried, owed at its next payout); rank 4 got nothing.
    const records = new Map((await payoutRecords(gameId, run.day, f.message)).map((r) => [r.arcId, r]));
    let spent = 0n;
    for (const [i, m] of members.entries()) {
      const gained = (await chain.getBalance(m.wallet)) - (balancesBefore[i] ?? 0n);
      spent += await checkPaid(f, records.get(m.arcId), m.arcId, gained, i < 3);
    }
    expect([...records.values()].some((r) => r.status === 'confirmed')).toBe(true);
    // The books: the run allocated exactly what it paid, paid in fees and carried, and its commitment's fee; the
    // vault's extra SOL is not there.
    const after = await poolBooks(gameId);
    expect(after?.inflow).toBe(before.inflow);
    const commitment = await commitmentFee(gameId, '', f.message);
    expect(commitment).toBe(5_000n);
    expect((after?.allocated ?? 0n) - before.allocated).toBe(BigInt(run.allocated) + commitment);
    expect(BigInt(run.allocated)).toBe(spent);

    // Replayed: nothing more is paid.
    const balancesAfter = await Promise.all(members.map((m) => chain.getBalance(m.wallet)));
    expect(await close(f)).toBe('closed');
    expect(await Promise.all(members.map((m) => chain.getBalance(m.wallet)))).toEqual(balancesAfter);
    expect((await poolBooks(gameId))?.allocated).toBe(after?.allocated);

    // Results (the studio), the periods list, the winner's GET /rewards/me.
    const read = await results(f);
    expect(read).toMatchObject({ status: 'paid', potLamports: pot.toString(), voided: null });
    expect(read.period.closedAt).toEqual(expect.any(String));
    expect(read.results).toHaveLength(3);
    for (const r of read.results) {
      const record = records.get(r.arcId);
      expect(r.prizeLamports).toBe(record?.share);
      expect(r.payout?.status).toBe(record?.status);
      expect(r.payout?.signature).toBe(record?.status === 'confirmed' ? record.signature : null);
    }
    const periodsPath = `/tournaments/${gameId}/${f.tournamentId}/periods`;
    const periods = await invoke<{ data: Array<{ id: string; closedAt: string | null }> }>(periodsHandler, {
      method: 'GET',
      path: periodsPath,
      pathParameters: { gameId, tournamentId: f.tournamentId },
      headers: hmacHeaders(f.seeded.dev, 'GET', periodsPath),
    });
    expect(periods.body.data.find((p) => p.id === f.periodId)?.closedAt).toEqual(expect.any(String));
    const winner = members[0];
    if (!winner) throw new Error('no winner');
    const mine = await myRewards(
      winner.auth,
      { limit: 10, offset: 0 },
      { walletOf: async () => winner.wallet, now: () => new Date() },
    );
    const prize = mine.data.payouts.find((p) => p.tournament?.tournamentId === f.tournamentId);
    expect(prize).toMatchObject({
      gameId,
      rank: 1,
      tournament: { tournamentId: f.tournamentId, periodId: f.periodId },
      shareLamports: shareOf(1).toString(),
      status: records.get(winner.arcId)?.status,
    });

    // The events, verified with the standardwebhooks library: the frozen results, then the payouts and the close.
    const sub = f.subscription;
    if (!sub) throw new Error('not subscribed');
    const relay = () => relayPending({ queue: queueDeliveries });
    await relay();
    await waitFor(() => sub.receiver.received.length >= 2 + run.lines.length, 20_000, 'the events');
    const payloads = verifiedPayloads(sub.receiver, sub.secret);
    const ofType = (type: string) => payloads.filter((p) => p.type === type);
    expect(ofType('tournament.period.ended')).toHaveLength(1);
    expect(ofType('tournament.period.ended')[0]?.data).toMatchObject({
      tournamentId: f.tournamentId,
      periodId: f.periodId,
      potLamports: pot.toString(),
      voided: null,
      results: [1, 2, 3].map((rank) => ({ rank, lamports: shareOf(rank).toString() })),
    });
    expect(ofType('tournament.period.paid')).toHaveLength(1);
    expect(ofType('tournament.period.paid')[0]?.data).toMatchObject({ totalLamports: run.allocated });
    const payoutEvents = [...ofType('payout.sent'), ...ofType('payout.carried')];
    expect(payoutEvents).toHaveLength(run.lines.length);
    for (const p of payoutEvents)
      expect(p.data.tournament).toEqual({ tournamentId: f.tournamentId, periodId: f.periodId });
  }, 180_000);

  it('pays each period of a recurring tournament from its own board, from the books as the last one left them', async () => {
    const f = await fixture({ recurring: true });
    const { gameId } = f.seeded;
    const [a, b, c] = f.seeded.players;
    if (!a || !b || !c) throw new Error('players');
    // The next period opens at the first one's end, to the second: a save then scores it alone, in a new order.
    const second = { ...f, periodId: iso(f.endsAt) };
    second.endsAt = new Date(f.endsAt.getTime() + 3_600_000);
    second.closesAt = new Date(second.endsAt.getTime() + 60_000);
    second.message = { ...f.message, periodId: second.periodId };
    await batchSavePoints(
      f.devAuth,
      {
        gameId,
        entries: [
          { playerId: c.arcId, points: 900 },
          { playerId: b.arcId, points: 100 },
        ],
      },
      { directory: localDirectory, tournaments: runningPeriods, now: () => f.endsAt },
    );
    const before = await poolBooks(gameId);
    expect(await close(f)).toBe('closed');
    const middle = await poolBooks(gameId);
    expect(await close(second)).toBe('closed');
    const first = await runOf(f);
    const next = await runOf(second);
    expect(first.prize.results.map((r) => r.arcId)).toEqual([a.arcId, b.arcId, c.arcId]);
    expect(next.prize.results.map((r) => [r.arcId, r.points])).toEqual([
      [c.arcId, 900],
      [b.arcId, 100],
    ]);
    // Each pot is a share of the books as they stood: the second period's after the first one's allocation, within
    // what the day's bound (half of the distributable pool before the day's prize runs) leaves it.
    const rent = await chain.getMinimumBalanceForRentExemption(0);
    const potOf = (books: typeof before) =>
      (((books?.undistributed ?? 0n) - rent) * BigInt(POOL_BPS)) / 10_000n;
    expect(first.prize.potLamports).toBe(potOf(before).toString());
    // The first run's commitment fee left the pool with it (allocated, not taken by prizes).
    const [firstFee, nextFee] = await Promise.all([
      commitmentFee(gameId, '', f.message),
      commitmentFee(gameId, '', second.message),
    ]);
    const room = ((before?.undistributed ?? 0n) - firstFee - rent) / 2n - BigInt(first.allocated);
    const share = potOf(middle);
    expect(next.prize.potLamports).toBe((share < room ? share : room).toString());
    expect(middle?.allocated).toBe((before?.allocated ?? 0n) + BigInt(first.allocated) + firstFee);
    expect((await poolBooks(gameId))?.allocated).toBe(
      (middle?.allocated ?? 0n) + BigInt(next.allocated) + nextFee,
    );
    expect(next.lines.map((l) => [l.arcId, l.rank])).toEqual([
      [c.arcId, 1],
      [b.arcId, 2],
    ]);
  }, 120_000);

  it('pays nothing for a period whose tournament was cancelled before its end (voided, books unchanged)', async () => {
    const f = await fixture();
    await cancelTournament(f.devAuth, f.seeded.gameId, f.tournamentId, new Date(f.endsAt.getTime() - 60_000));
    const before = await poolBooks(f.seeded.gameId);
    expect(await close(f)).toBe('closed');
    const run = await runOf(f);
    expect(run.prize).toMatchObject({ voided: 'cancelled', potLamports: '0', results: [] });
    expect(run.lines).toEqual([]);
    expect((await poolBooks(f.seeded.gameId))?.allocated).toBe(before?.allocated);
    expect(await results(f)).toMatchObject({ status: 'paid', voided: 'cancelled', results: [] });
  }, 120_000);

  it('is queued by the schedule once due, queued again only after a while, and leaves the index when closed', async () => {
    const f = await fixture();
    const record = async () =>
      (
        await dynamo().send(
          new GetCommand({
            TableName: playTable(),
            Key: tournamentPlayKeys.period(f.seeded.gameId, f.tournamentId, f.periodId),
            ConsistentRead: true,
          }),
        )
      ).Item;
    expect(await record()).toMatchObject({ closeAt: f.closesAt.toISOString(), entrants: 4 });
    const queuedAt = async (at: Date) => {
      const bodies: string[] = [];
      await scheduleTournamentCloses({
        send: async (b) => {
          bodies.push(...b);
          return b.length;
        },
        now: () => at,
      });
      return bodies.map((b) => JSON.parse(b)).filter((m) => m.tournamentId === f.tournamentId);
    };
    expect(await queuedAt(new Date(f.closesAt.getTime() - 1_000))).toEqual([]);
    expect(await queuedAt(f.closesAt)).toEqual([f.message]);
    // Queued: not again before REQUEUE_SECONDS, in case its run is lost.
    expect(await queuedAt(new Date(f.closesAt.getTime() + 1_000))).toEqual([]);
    expect(await queuedAt(new Date(f.closesAt.getTime() + 601_000))).toEqual([f.message]);
    expect(await close(f)).toBe('closed');
    expect((await record())?.closeDue).toBeUndefined();
    expect(await queuedAt(new Date(f.closesAt.getTime() + 3_600_000))).toEqual([]);
  }, 120_000);

  it('shows results to the game’s players and the studio only', async () => {
    const f = await fixture();
    expect(await close(f)).toBe('closed');
    const player = f.seeded.players[0];
    if (!player) throw new Error('no player');
    const sessionId = randomUUID();
    const asPlayer = await results(f, {
      scheme: 'session',
      userId: player.arcId,
      gameId: f.seeded.gameId,
      sessionId,
    });
    expect(asPlayer.results[0]).toMatchObject({ arcId: player.arcId, rank: 1 });
    // Through the route: a session token of another game, another studio's key, no credentials, an unknown one.
    const otherGame = await issueSessionToken(
      { arcId: player.arcId, sessionId, gameId: randomUUID() },
      new Date(Date.now() + 600_000),
    );
    expect((await resultsOver(f, { authorization: `Bearer ${otherGame}` })).status).toBe(403);
    expect((await resultsOver(f, hmacHeaders(stranger, 'GET', resultsPath(f)))).status).toBe(403);
    expect((await resultsOver(f, {})).status).toBe(401);
    const missing = randomUUID();
    const unknown = await resultsOver(f, hmacHeaders(f.seeded.dev, 'GET', resultsPath(f, missing)), missing);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
  }, 120_000);
});
