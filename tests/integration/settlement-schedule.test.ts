import { describe, expect, it } from 'vitest';
import { dueDays, scheduleSettlements } from '../../lib/settlement/schedule.js';

describe('scheduleSettlements', () => {
  const now = new Date('2026-11-25T12:00:00.000Z');
  const run = async (players: Record<string, string[]>, emitting: string[]) => {
    const sent: string[] = [];
    const result = await scheduleSettlements({
      now: () => now,
      listGameIds: async () => ['played', 'emitting', 'idle'],
      hasPlayers: async (gameId, day) => (players[gameId] ?? []).includes(day),
      coinActive: async (gameId) => emitting.includes(gameId),
      send: async (bodies) => {
        sent.push(...bodies);
        return bodies.length;
      },
    });
    return { result, sent: sent.map((b) => JSON.parse(b) as { gameId: string; day: string }) };
  };

  it('queues the games with players on each due day, and none without', async () => {
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
});
