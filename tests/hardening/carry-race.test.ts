// A carry (what a recipient is owed from a payout that could not land) is paid once, whatever races the run that
// consumes it: a run reads the carries, then persists its intent; anything that pays, carries or moves a carry in
// between makes the intent fail its condition and the run read again (docs/settlement.md, "Carries"). Each test
// holds a run right after it read the carry (the DynamoDB client's after-call hook), lets the attacker's write
// land, then lets the run go on, and checks the chain against the books.
import '../helpers/enable-metrics.js';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  sideEffects as settleDeps,
  handler as settleHandler,
} from '../../functions/settlement/settle-game-days.js';
import { afterEachCall, dynamo } from '../../lib/adapters/dynamodb.js';
import { moveCarry, settleGameDay } from '../../lib/rewards/index.js';
import { getPool } from '../../lib/rewards/pool-repository.js';
import { settlementKeys, settlementTable } from '../../lib/rewards/settlement/keys.js';
import type { PayoutLine } from '../../lib/rewards/settlement/model.js';
import { getSettlement, openDay } from '../../lib/rewards/settlement/repository.js';
import { metricTotal, stdoutRecords } from '../helpers/metrics.js';
import { close, fixture, runOf } from '../helpers/prizes.js';
import { carryOf, chain, payoutOf, randomDay, seedDay } from '../helpers/settlement.js';

/** The one call a test holds: the first `operation` (GetItem, PutItem) of this key completes, then waits. */
let hold:
  | { operation: string; key: { pk: string; sk: string }; reached: () => void; released: Promise<void> }
  | undefined;
afterEachCall(async (operation, input) => {
  const key = (input.Key ?? input.Item) as { pk?: string; sk?: string } | undefined;
  const held = hold;
  if (!held || operation !== held.operation || key?.pk !== held.key.pk || key?.sk !== held.key.sk) return;
  hold = undefined;
  held.reached();
  await held.released;
});

/** Hold the next `operation` on `key` until `release` is called; `reached` resolves once it is held. */
const holdRead = (key: { pk: string; sk: string }, operation = 'GetItem') => {
  let reached!: () => void;
  let release!: () => void;
  const reachedP = new Promise<void>((r) => {
    reached = r;
  });
  hold = { operation, key, reached, released: new Promise<void>((r) => (release = r)) };
  return { reached: reachedP, release: () => release() };
};

/** An owed carry of `lamports` for `arcId` in `gameId` (as a line that could not land leaves it). */
const owe = (gameId: string, arcId: string, lamports: number) =>
  dynamo().send(
    new PutCommand({
      TableName: settlementTable(),
      Item: {
        ...settlementKeys.carry(gameId, arcId),
        lamports,
        gameId,
        arcId,
        updatedAt: new Date().toISOString(),
      },
    }),
  );

const paidAndFees = async (gameId: string) => {
  const pool = await getPool(gameId);
  return BigInt(pool?.totalPaidLamports ?? 0) + BigInt(pool?.totalFeesLamports ?? 0);
};

/** What the confirmed lines sent and cost the vault (send + fee), and the carry they consumed, for one recipient. */
const linesOf = (lines: PayoutLine[], arcId: string) => lines.filter((l) => l.arcId === arcId);
const carriedIn = (lines: PayoutLine[]) => lines.reduce((sum, l) => sum + BigInt(l.carriedIn), 0n);

const CARRY = 3_000_000;

describe('a carry is paid once', () => {
  it('a daily run paying the carry while a prize run of the same game freezes: the prize run reads it again', async () => {
    // The prize run takes nothing from the pool (no pool share, no deposit): no condition on the pool's allocated
    // total stops its intent, only the carries' own.
    const f = await fixture({ poolBps: 0 });
    const { gameId } = f.seeded;
    const owed = f.seeded.players[1];
    if (!owed) throw new Error('no player');
    await owe(gameId, owed.arcId, CARRY);
    const vaultBefore = await chain.getBalance(f.seeded.vaultAddress);
    const booksBefore = await paidAndFees(gameId);
    const walletBefore = await chain.getBalance(owed.wallet);

    // The prize run reads the carry, and is held there.
    const held = holdRead(settlementKeys.carry(gameId, owed.arcId));
    const prizeRun = close(f);
    await held.reached;
    // Meanwhile the day's run of the same game freezes, pays the carry with the day's line and closes.
    const daily = await settleGameDay(gameId, f.seeded.day, { ...settleDeps, now: () => f.seeded.after });
    if (daily.status !== 'settled') throw new Error('the day did not settle');
    held.release();
    expect(await prizeRun).toBe('closed');
    const prize = await runOf(f);

    const lines = [...linesOf(daily.settlement.lines, owed.arcId), ...linesOf(prize.lines, owed.arcId)];
    // The carry went out with exactly one line (the day's; a prize of 0 with nothing carried in is no line).
    expect(carriedIn(lines)).toBe(BigInt(CARRY));
    expect(await carryOf(gameId, owed.arcId)).toBe(0n);
    // The recipient's wallet gained what the lines sent, once each; the vault dropped by what the books say.
    const sent = lines.reduce((sum, l) => sum + BigInt(l.send), 0n);
    expect((await chain.getBalance(owed.wallet)) - walletBefore).toBe(sent);
    const booked = (await paidAndFees(gameId)) - booksBefore;
    expect(vaultBefore - (await chain.getBalance(f.seeded.vaultAddress))).toBe(booked);
  });

  it('an identity merge moving the carry while a run freezes: the run reads it again, the person is paid it once', async () => {
    const seeded = await seedDay({ day: randomDay(), playerCount: 4 });
    const { gameId } = seeded;
    // Two funded players of the day: the ghost owed a carry, and the person it merges into.
    const [ghost, person] = [seeded.players[1], seeded.players[3]];
    if (!ghost || !person) throw new Error('no players');
    await owe(gameId, ghost.arcId, CARRY);
    const vaultBefore = await chain.getBalance(seeded.vaultAddress);
    const booksBefore = await paidAndFees(gameId);
    const walletsBefore = await Promise.all([ghost, person].map((m) => chain.getBalance(m.wallet)));

    const held = holdRead(settlementKeys.carry(gameId, ghost.arcId));
    const run = settleGameDay(gameId, seeded.day, { ...settleDeps, now: () => seeded.after });
    await held.reached;
    // The merge finds no run open yet, and moves the ghost's carry to the person.
    expect(await moveCarry(gameId, ghost.arcId, person.arcId, new Date().toISOString())).toEqual({
      lamports: CARRY,
    });
    held.release();
    const outcome = await run;
    if (outcome.status !== 'settled') throw new Error('the day did not settle');

    const { lines } = outcome.settlement;
    // The ghost's line carries nothing in; the person's carries the whole carry; nothing is left owed.
    expect(carriedIn(linesOf(lines, ghost.arcId))).toBe(0n);
    expect(carriedIn(linesOf(lines, person.arcId))).toBe(BigInt(CARRY));
    expect(await carryOf(gameId, ghost.arcId)).toBe(0n);
    expect(await carryOf(gameId, person.arcId)).toBe(0n);
    const walletsAfter = await Promise.all([ghost, person].map((m) => chain.getBalance(m.wallet)));
    const gained = walletsAfter.reduce((sum, b, i) => sum + b - (walletsBefore[i] ?? 0n), 0n);
    const sent = [...linesOf(lines, ghost.arcId), ...linesOf(lines, person.arcId)].reduce(
      (sum, l) => sum + BigInt(l.send),
      0n,
    );
    expect(gained).toBe(sent);
    const booked = (await paidAndFees(gameId)) - booksBefore;
    expect(vaultBefore - (await chain.getBalance(seeded.vaultAddress))).toBe(booked);
  });

  it('a line sent whose carry changed under it fails loudly: not booked, its run left open, a metric for the alarm', async () => {
    // The handler settles by the real clock: a day of 2020–2024, long due (randomDay reaches past today).
    const day = new Date(Date.UTC(2020, 0, 1) + Math.floor(Math.random() * 1_800) * 86_400_000)
      .toISOString()
      .slice(0, 10);
    const seeded = await seedDay({ day, playerCount: 4 });
    const { gameId } = seeded;
    const owed = seeded.players[1];
    if (!owed) throw new Error('no player');
    await owe(gameId, owed.arcId, CARRY);
    // Once the run created the line's record (its intent consumed the carry), a write outside the settlement
    // changes the carry: the transfer still goes out, its completion can't book it as computed.
    const held = holdRead(settlementKeys.payout(gameId, day, owed.arcId), 'PutItem');
    const event = {
      Records: [{ messageId: 'm1', body: JSON.stringify({ gameId, day }) }],
    } as unknown as SQSEvent;
    const handled = stdoutRecords(() => settleHandler(event));
    // The handler ending before the record was written would leave the hold unreached: say so instead of waiting.
    await Promise.race([
      held.reached,
      handled.then((records) => {
        const said = records.filter((r) => r.level === 'ERROR' || r.level === 'WARN').slice(0, 3);
        throw new Error(`the settlement ended before it wrote the line: ${JSON.stringify(said)}`);
      }),
    ]);
    await owe(gameId, owed.arcId, CARRY + 1);
    held.release();
    const records = await handled;
    expect(metricTotal(records, 'PayoutsUnbooked')).toBe(1);
    // The line stays pending with its signature (a later run completes it once reconciled), the day stays open.
    const record = await payoutOf(gameId, day, owed.arcId);
    expect(record?.status).toBe('pending');
    expect(record?.signature).toEqual(expect.any(String));
    expect((await getSettlement(gameId, day))?.status).toBe('paying');
    expect(await openDay(gameId)).toBe(day);
  });
});
