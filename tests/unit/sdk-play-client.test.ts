// The browser play client before a session exists: each session call fails at once with what to do, and sends
// nothing (the API's 401 for a missing token said nothing about start()).
import { describe, expect, it } from 'vitest';
import { PlayClient } from '../../sdk/src/browser.js';

describe('PlayClient before start()', () => {
  it('refuses flush, commit, resync, points and the board and name calls with SESSION_NOT_STARTED, without a request', async () => {
    const sent: string[] = [];
    const client = new PlayClient({
      baseUrl: 'http://127.0.0.1:9',
      fetch: async (input) => {
        sent.push(String(input instanceof Request ? input.url : input));
        return new Response('{}', { status: 500 });
      },
    });
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['flush', () => client.flush(10)],
      ['commit', () => client.commit()],
      ['resync', () => client.resync()],
      ['points', () => client.points()],
      ['leaderboard', () => client.leaderboard()],
      ['myRank', () => client.myRank({ period: 'alltime' })],
      ['setDisplayName', () => client.setDisplayName('Star')],
    ];
    for (const [name, call] of calls)
      await expect(call(), name).rejects.toMatchObject({
        name: 'ArcadiaError',
        code: 'SESSION_NOT_STARTED',
        message: `PlayClient.${name}() needs a session: call start(gameId, playerToken) first`,
      });
    client.add(5);
    await expect(client.flushPending()).rejects.toMatchObject({ code: 'SESSION_NOT_STARTED' });
    // The points stay collected for the flush after start().
    expect(client.buffered).toBe(5);
    expect(sent).toEqual([]);
  });
});
