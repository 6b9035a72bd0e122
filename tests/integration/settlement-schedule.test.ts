import { randomBytes, randomUUID } from 'node:crypto';
import bs58 from 'bs58';
import { describe, expect, it } from 'vitest';
import { dynamo } from '../../lib/adapters/dynamodb.js';
import { gamesActiveOn } from '../../lib/play/index.js';
import { batchSavePoints } from '../../lib/play/saves/save.js';
import { dueDays, scheduleSettlements } from '../../lib/rewards/settlement/schedule.js';
import { localDirectory } from '../../lib/user/directory.js';
import { registerGame } from '../helpers/games.js';
import { createDeveloper } from '../helpers/users.js';

describe('scheduleSettlements', () => {
  const now = new Date('2026-11-25T12:00:00.000Z');
  const run = async (
    players: Record<string, string[]>,
    emitting: string[],
    settled: string[] = [],
  ): Promise<{ result: { queued: number }; sent: Array<{ gameId: string; day: string }> }> => {
    const sent: string[] = [];
    const result = await scheduleSettlements({
      now: () => now,
      gamesActiveOn: async (day) => Object.keys(players).filter((id) => players[id]?.includes(day)),
      emittingGames: async () => emitting,
      settledAmong: async (pairs) =>
        new Set(pairs.map((p) => `${p.gameId}|${p.day}`).filter((k) => settled.includes(k))),
      send: async (bodies) => {
        sent.push(...bodies);
        return bodies.length;
      },
    });
    return { result, sent: sent.map((b) => JSON.parse(b) as { gameId: string; day: string }) };
  };

  it('queues the games with activity on each due day, and none without', async () => {
    const [day] = dueDays(now);
    if (!day) throw new Error('no due day');
    const { result, sent } = await run({ played: [day] }, []);
    expect(sent).toEqual([{ gameId: 'played', day }]);
    expect(result.queued).toBe(1);
  });

  it('queues a game whose coin is still emitting on every due day, players or not, so its last day settles', async () => {
    const days = dueDays(now);
    const { sent } = await run({}, ['emitting']);
    expect(sent).toEqual(days.map((day) => ({ gameId: 'emitting', day })));
    expect(sent.some((m) => m.gameId === 'idle')).toBe(false);
  });

  it('does not queue a day already settled', async () => {
    const [day, before] = dueDays(now);
    if (!day || !before) throw new Error('no due days');
    const { sent } = await run({ played: [day, before] }, [], [`played|${day}`]);
    expect(sent).toEqual([{ gameId: 'played', day: before }]);
  });
});

describe('scheduleSettlements through the index of games with activity', () => {
  it('queues the day of a game that had a score (found by the index, not a scan) and none for a game without', async () => {
    const dev = await createDeveloper();
    const [played, idle] = [await registerGame(dev), await registerGame(dev)];
    const player = `sol:${bs58.encode(randomBytes(32))}`;
    await batchSavePoints(
      { scheme: 'hmac', userId: dev.arcId },
      { gameId: played.id, entries: [{ playerId: player, points: 7, sessionId: 'only' }] },
      { directory: localDirectory },
    );
    // The settlement of the day before yesterday is due; today is not: run the schedule two days from now.
    const today = new Date().toISOString().slice(0, 10);
    const now = new Date(Date.parse(`${today}T23:00:00.000Z`) + 86_400_000);
    expect(dueDays(now)).toContain(today);
    const sent: Array<{ gameId: string; day: string }> = [];
    // Every DynamoDB command of the run: the games come from indexes, none from a scan of a table.
    const commands: string[] = [];
    const name = `scheduleCommands-${randomUUID()}`;
    dynamo().middlewareStack.add(
      (next, context) => async (args) => {
        commands.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize', name },
    );
    await scheduleSettlements({
      now: () => now,
      gamesActiveOn,
      send: async (bodies) => {
        sent.push(...bodies.map((b) => JSON.parse(b) as { gameId: string; day: string }));
        return bodies.length;
      },
    });
    dynamo().middlewareStack.remove(name);
    expect(commands).not.toContain('ScanCommand');
    expect(commands).toContain('QueryCommand');
    expect(sent).toContainEqual({ gameId: played.id, day: today });
    expect(sent.some((m) => m.gameId === idle.id)).toBe(false);
  });
});
