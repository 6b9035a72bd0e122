// The browser play client before a session exists: each session call fails at once with what to do, and sends
// nothing (the API's 401 for a missing token said nothing about start()).
import { describe, expect, it } from 'vitest';
import { PlayClient } from '../../sdk/src/browser.js';

const GAME = '6f1d3c1e-2a4b-4c5d-8e9f-0a1b2c3d4e5f';
const TOURNAMENT = '3f0c9a52-8d7e-4b61-9a0f-2c4d6e8f1a3b';
const PERIOD = '2026-12-07T00:00:00Z';

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
      ['tournaments', () => client.tournaments()],
      ['tournament', () => client.tournament(TOURNAMENT)],
      ['joinTournament', () => client.joinTournament(TOURNAMENT)],
      ['myTournamentEntries', () => client.myTournamentEntries()],
      ['tournamentBoard', () => client.tournamentBoard(TOURNAMENT, PERIOD, { me: true })],
      ['tournamentResults', () => client.tournamentResults(TOURNAMENT, PERIOD)],
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

describe('PlayClient tournament calls', () => {
  it('read and join the tournaments of the session game with the session token, the board with its page and me', async () => {
    const sent: Array<{ method: string; url: string; authorization: string | null }> = [];
    const client = new PlayClient({
      baseUrl: 'http://api.test/',
      fetch: async (request) => {
        const url = new URL(request.url);
        sent.push({
          method: request.method,
          url: `${url.pathname}${url.search}`,
          authorization: request.headers.get('authorization'),
        });
        const data =
          url.pathname === '/play/session-token'
            ? { sessionId: 's-1', sessionToken: 'session-token', chainSeed: 'ab'.repeat(32) }
            : { answer: url.pathname };
        return Response.json({ data }, { status: request.method === 'POST' ? 201 : 200 });
      },
    });
    await client.start(GAME, 'player-token', 'key-1');
    sent.length = 0;
    const tournaments = `/tournaments/${GAME}`;
    const period = `${tournaments}/${TOURNAMENT}/periods/${encodeURIComponent(PERIOD)}/board`;
    expect(await client.tournaments()).toEqual({ answer: tournaments });
    await client.tournaments({ limit: 5 });
    await client.tournament(TOURNAMENT);
    expect(await client.joinTournament(TOURNAMENT)).toEqual({ answer: `${tournaments}/${TOURNAMENT}/join` });
    await client.myTournamentEntries();
    await client.tournamentBoard(TOURNAMENT, PERIOD);
    await client.tournamentBoard(TOURNAMENT, PERIOD, { limit: 10, offset: 20, me: true });
    await client.tournamentBoard(TOURNAMENT, PERIOD, { me: false });
    await client.tournamentResults(TOURNAMENT, PERIOD);
    expect(sent).toEqual(
      [
        ['GET', tournaments],
        ['GET', `${tournaments}?limit=5`],
        ['GET', `${tournaments}/${TOURNAMENT}`],
        ['POST', `${tournaments}/${TOURNAMENT}/join`],
        ['GET', `/tournament-entries/${GAME}/me`],
        ['GET', period],
        ['GET', `${period}?limit=10&offset=20&me=true`],
        ['GET', `${period}?me=false`],
        ['GET', period.replace(/board$/, 'results')],
      ].map(([method, url]) => ({ method, url, authorization: 'Bearer session-token' })),
    );
  });
});
