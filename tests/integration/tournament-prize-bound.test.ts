// The rewards pool against its tournaments, through the local stack and chain: prize runs take at most half of the
// game's distributable pool per UTC day, whatever the number of periods (the pool's books say so), and only the
// game's controller may schedule or change a prize table drawing on the pool.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { sideEffects as settleDeps } from '../../functions/settlement/settle-game-days.js';
import { dynamo } from '../../lib/adapters/dynamodb.js';
import { getGame, saveGame } from '../../lib/games/repository.js';
import { batchSavePoints } from '../../lib/play/saves/save.js';
import { prizeRunOf } from '../../lib/rewards/index.js';
import { rewardsKeys, rewardsTable } from '../../lib/rewards/keys.js';
import { poolBooks } from '../../lib/rewards/payout.js';
import {
  closePeriod,
  createTournament,
  runningPeriods,
  updateTournament,
} from '../../lib/tournaments/index.js';
import { localDirectory } from '../../lib/user/directory.js';
import { iso } from '../helpers/prizes.js';
import { chain, commitmentFee, newMember, randomDay, seedDay } from '../helpers/settlement.js';

const MINUTE = 60_000;
/** 01:00 UTC of a random future day: the stack's own schedule (real clock) never finds these periods due. */
const futureDay = () => new Date(Date.UTC(2031, 0, 1, 1) + Math.floor(Math.random() * 1_500) * 86_400_000);

const prizeBody = (start: Date, rewardsPoolBps: number) => ({
  title: 'Minute cup',
  startsAt: iso(start),
  recurrence: { everySeconds: 60 },
  durationSeconds: 60,
  until: iso(new Date(start.getTime() + 10 * MINUTE)),
  prizes: [{ fromRank: 1, toRank: 1, bps: 10_000 }],
  prizePool: { rewardsPoolBps },
  payoutDelaySeconds: 60,
});

describe('tournament prizes against the pool', () => {
  it('takes at most half of the distributable pool per UTC day, however many periods close that day', async () => {
    const seeded = await seedDay({ day: randomDay(), playerCount: 2 });
    const { gameId } = seeded;
    const devAuth = { scheme: 'hmac' as const, userId: seeded.dev.arcId, apiKey: seeded.dev.apiKey };
    const start = futureDay();
    // The attacker: one-minute periods, each taking the most a period may (50 % of the pool), all to rank 1.
    const t = await createTournament(
      devAuth,
      gameId,
      prizeBody(start, 5_000),
      new Date(start.getTime() - MINUTE),
    );
    const before = await poolBooks(gameId);
    if (!before) throw new Error('no pool');
    const rent = await chain.getMinimumBalanceForRentExemption(0);
    const bound = (before.undistributed - rent) / 2n;
    const periods = 4;
    const pots: bigint[] = [];
    // The runs' commitment fees: allocated with them, but not a prize the bound limits.
    let fees = 0n;
    for (let k = 0; k < periods; k++) {
      const periodStart = new Date(start.getTime() + k * MINUTE);
      await batchSavePoints(
        devAuth,
        { gameId, entries: seeded.players.map((p, i) => ({ playerId: p.arcId, points: 100 - i })) },
        {
          directory: localDirectory,
          tournaments: runningPeriods,
          now: () => new Date(periodStart.getTime() + 30_000),
        },
      );
      const message = { gameId, tournamentId: t.tournamentId, periodId: iso(periodStart) };
      const closeAt = new Date(periodStart.getTime() + 2 * MINUTE);
      expect(await closePeriod(message, { ...settleDeps, now: () => closeAt })).toBe('closed');
      const run = await prizeRunOf(gameId, {
        ...message,
        endsAt: iso(new Date(periodStart.getTime() + MINUTE)),
      });
      pots.push(BigInt(run?.prize?.potLamports ?? -1));
      fees += await commitmentFee(gameId, '', message);
    }
    const after = await poolBooks(gameId);
    const taken = (after?.allocated ?? 0n) - before.allocated - fees;
    // The first period takes its whole share (the day's whole bound); later periods of the day find no room.
    expect(pots[0]).toBe(bound);
    expect(taken <= bound).toBe(true);
    expect(pots.slice(1)).toEqual([0n, 0n, 0n]);
    // The pool's books of the day record what prize runs took, within the bound.
    const day = iso(start).slice(0, 10);
    const { Item } = await dynamo().send(
      new GetCommand({
        TableName: rewardsTable(),
        Key: rewardsKeys.poolDay(gameId, day),
        ConsistentRead: true,
      }),
    );
    expect(BigInt(Item?.prizePoolLamports ?? -1)).toBe(taken);
    expect(BigInt(Item?.allocatedLamports ?? -1)).toBe(taken + fees);
  }, 120_000);

  it('refuses a creator who is not the controller a prize table on the pool (403); the verified owner may', async () => {
    const seeded = await seedDay({ day: randomDay(), playerCount: 1 });
    const { gameId } = seeded;
    const creator = { scheme: 'hmac' as const, userId: seeded.dev.arcId, apiKey: seeded.dev.apiKey };
    const start = futureDay();
    const now = new Date(start.getTime() - 10 * MINUTE);
    // Before anyone proves the domain the creator is the controller: it schedules a table on the pool.
    const own = await createTournament(creator, gameId, prizeBody(start, 2_000), now);
    // Someone else proves the domain: the owner now routes the pool's money.
    const owner = await newMember();
    const record = await getGame(gameId);
    if (!record) throw new Error('game vanished');
    await saveGame(
      { ...record, version: record.version + 1, ownerId: owner.arcId, ownershipVerified: true },
      record,
    );

    const refused = { status: 403, code: 'FORBIDDEN' };
    await expect(createTournament(creator, gameId, prizeBody(start, 5_000), now)).rejects.toMatchObject(
      refused,
    );
    await expect(
      updateTournament(creator, gameId, own.tournamentId, prizeBody(start, 5_000), now),
    ).rejects.toMatchObject(refused);
    // The owner may.
    const byOwner = await createTournament(owner.auth, gameId, prizeBody(start, 5_000), now);
    expect(byOwner.prizePool).toEqual({ rewardsPoolBps: 5_000 });
    const changed = await updateTournament(
      owner.auth,
      gameId,
      own.tournamentId,
      prizeBody(start, 3_000),
      now,
    );
    expect(changed.prizePool).toEqual({ rewardsPoolBps: 3_000 });
  }, 120_000);
});
