// Developer operations (games, Play (developer)) accept the user's identity-provider bearer token as well as an
// HMAC signature, with the same authorization rules: the studio console calls them without holding a secret.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as claimOwnership } from '../../functions/games/claim-game-ownership.js';
import { handler as createGame } from '../../functions/games/create-game.js';
import { handler as uploadUrl } from '../../functions/games/create-game-image-upload-url.js';
import { handler as listMyGames } from '../../functions/games/list-my-games.js';
import { handler as toggleVisibility } from '../../functions/games/toggle-game-visibility.js';
import { handler as updateGame } from '../../functions/games/update-game.js';
import { handler as batchSave } from '../../functions/play-developer/batch-save-points.js';
import { handler as getLeaderboard } from '../../functions/play-developer/get-dev-leaderboard.js';
import { handler as getPoints } from '../../functions/play-developer/get-dev-points.js';
import { handler as invalidate } from '../../functions/play-developer/invalidate-sessions.js';
import { handler as listSessions } from '../../functions/play-developer/list-dev-sessions.js';
import { handler as listRisky } from '../../functions/play-developer/list-risky-sessions.js';
import { openApiDocument } from '../../lib/api/reference/index.js';
import { gameBody } from '../helpers/games.js';
import { type Handler, invoke } from '../helpers/http.js';
import { idpToken } from '../helpers/idp.js';
import { createDeveloper, type Developer, hmacHeaders } from '../helpers/users.js';

interface Body {
  data?: Record<string, unknown> & { game?: { id: string } };
  error?: { code: string; message: string };
}

/** A developer with both credentials: the HMAC key pair and a bearer token of the same identity. */
const developer = async (): Promise<Developer & { token: string }> => {
  const name = `studio-${randomUUID().slice(0, 8)}`;
  const dev = await createDeveloper(name);
  return { ...dev, token: await idpToken(name) };
};

let alice: Developer & { token: string };
let bob: Developer & { token: string };
let gameId: string;
let pageServer: Server;
let pageBase: string;
const pages = new Map<string, string>();

beforeAll(async () => {
  [alice, bob] = await Promise.all([developer(), developer()]);
  pageServer = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(pages.get(req.url ?? '') ?? '<html><head></head></html>');
  });
  await new Promise<void>((resolve) => pageServer.listen(0, '127.0.0.1', resolve));
  pageBase = `http://localhost:${(pageServer.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => pageServer.close(() => resolve())));

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

const call = (
  handler: Handler,
  headers: Record<string, string>,
  request: {
    method: string;
    path: string;
    pathParameters?: Record<string, string>;
    query?: Record<string, string>;
    body?: unknown;
  },
) => invoke<Body>(handler, { ...request, headers });

describe('developer operations with a bearer token', () => {
  it("lets the game's creator register, update, save points and read the board with their bearer token", async () => {
    const created = await call(createGame, bearer(alice.token), {
      method: 'POST',
      path: '/games',
      body: gameBody({ maxScorePerSession: 10 }),
    });
    expect(created.status).toBe(201);
    gameId = created.body.data?.game?.id ?? '';
    expect(created.body.data?.game).toMatchObject({ creatorId: alice.arcId });

    const updated = await call(updateGame, bearer(alice.token), {
      method: 'POST',
      path: `/games/update/${gameId}`,
      pathParameters: { gameId },
      body: { description: 'Updated from the console' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body.data?.game).toMatchObject({ description: 'Updated from the console' });

    const player = `x:p${randomUUID().slice(0, 8)}`;
    const saved = await call(batchSave, bearer(alice.token), {
      method: 'POST',
      path: '/play/dev/batch-save-points',
      body: {
        gameId,
        entries: [
          { playerId: player, points: 8, sessionId: 'calm' },
          { playerId: player, points: 50, sessionId: 'greedy' },
          { playerId: player, points: 50, sessionId: 'greedy' },
        ],
      },
    });
    expect(saved.status).toBe(200);

    const board = await call(getLeaderboard, bearer(alice.token), {
      method: 'GET',
      path: `/play/dev/leaderboard/${gameId}`,
      pathParameters: { gameId },
      query: { player },
    });
    expect(board.status).toBe(200);
    expect(board.body.data).toMatchObject({ player: { rank: 1, points: 18 } });

    const points = await call(getPoints, bearer(alice.token), {
      method: 'GET',
      path: '/play/dev/points',
      query: { gameId, playerIds: player },
    });
    expect(points.status).toBe(200);

    const sessions = await call(listSessions, bearer(alice.token), {
      method: 'GET',
      path: `/play/dev/sessions/${gameId}`,
      pathParameters: { gameId },
    });
    expect(sessions.status).toBe(200);
    const risky = await call(listRisky, bearer(alice.token), {
      method: 'GET',
      path: `/play/dev/risky-sessions/${gameId}`,
      pathParameters: { gameId },
    });
    expect(risky.status).toBe(200);
    expect((risky.body.data as unknown as Array<{ sessionId: string }>).map((s) => s.sessionId)).toEqual([
      'greedy',
    ]);

    const removed = await call(invalidate, bearer(alice.token), {
      method: 'POST',
      path: '/play/dev/invalidate-sessions',
      body: { gameId, sessionIds: ['greedy'] },
    });
    expect(removed.status).toBe(200);

    const mine = await call(listMyGames, bearer(alice.token), { method: 'GET', path: '/games/me' });
    expect(mine.status).toBe(200);
    expect(JSON.stringify(mine.body.data)).toContain(gameId);

    const upload = await call(uploadUrl, bearer(alice.token), {
      method: 'POST',
      path: '/games/images/upload-url',
      body: { contentType: 'image/png', contentLength: 1000 },
    });
    expect(upload.status).toBe(201);
    expect(upload.body.data?.imageKey).toMatch(new RegExp(`^uploads/${alice.arcId}/`));

    const hidden = await call(toggleVisibility, bearer(alice.token), {
      method: 'POST',
      path: `/games/toggle-visibility/${gameId}`,
      pathParameters: { id: gameId },
    });
    expect(hidden.status).toBe(200);
  });

  it('refuses another user bearing a valid token with 403, as it refuses their signature', async () => {
    const requests: Array<[Handler, Parameters<typeof call>[2]]> = [
      [
        updateGame,
        {
          method: 'POST',
          path: `/games/update/${gameId}`,
          pathParameters: { gameId },
          body: { description: 'taken over' },
        },
      ],
      [
        toggleVisibility,
        { method: 'POST', path: `/games/toggle-visibility/${gameId}`, pathParameters: { id: gameId } },
      ],
      [
        batchSave,
        {
          method: 'POST',
          path: '/play/dev/batch-save-points',
          body: { gameId, entries: [{ playerId: 'x:intruder', points: 1 }] },
        },
      ],
      [
        getLeaderboard,
        { method: 'GET', path: `/play/dev/leaderboard/${gameId}`, pathParameters: { gameId } },
      ],
      [listRisky, { method: 'GET', path: `/play/dev/risky-sessions/${gameId}`, pathParameters: { gameId } }],
      [
        invalidate,
        { method: 'POST', path: '/play/dev/invalidate-sessions', body: { gameId, sessionIds: ['calm'] } },
      ],
    ];
    for (const [handler, request] of requests) {
      const res = await call(handler, bearer(bob.token), request);
      expect(res.status, request.path).toBe(403);
      expect(res.body.error?.code).toBe('FORBIDDEN');
    }
  });

  it('answers 401 to a bearer token that does not verify, saying what the endpoint accepts', async () => {
    const [header, payload] = alice.token.split('.');
    for (const token of ['not-a-jwt', `${header}.${payload}.${'A'.repeat(86)}`]) {
      const res = await call(updateGame, bearer(token), {
        method: 'POST',
        path: `/games/update/${gameId}`,
        pathParameters: { gameId },
        body: { description: 'forged' },
      });
      expect(res.status).toBe(401);
      expect(res.body.error?.message).toContain('identity-provider token');
      expect(res.body.error?.message).toContain('HMAC signature');
    }
  });

  it('still accepts the HMAC signature of the same user', async () => {
    const path = `/games/update/${gameId}`;
    const res = await call(updateGame, hmacHeaders(alice, 'POST', path), {
      method: 'POST',
      path,
      pathParameters: { gameId },
      body: { description: 'Updated by the backend' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data?.game).toMatchObject({ description: 'Updated by the backend' });
  });

  it("proves ownership with a bearer token: the tag carries the user's API key", async () => {
    const page = `/${randomUUID()}`;
    pages.set(page, `<html><head><meta name="arcadia-verification" content="${alice.apiKey}"></head></html>`);
    const created = await call(createGame, bearer(alice.token), {
      method: 'POST',
      path: '/games',
      body: gameBody({ gameUrl: `${pageBase}${page}` }),
    });
    const id = created.body.data?.game?.id ?? '';
    const claim = (token: string) =>
      call(claimOwnership, bearer(token), {
        method: 'POST',
        path: `/games/claim-ownership/${id}`,
        pathParameters: { gameId: id },
      });
    // Bob's key is not on the page: his token proves nothing.
    expect((await claim(bob.token)).status).toBe(403);
    const res = await claim(alice.token);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ ownerId: alice.arcId, ownershipVerified: true });
  });

  it('documents HMAC and bearer as alternatives on every developer operation', () => {
    const paths = openApiDocument().paths as Record<string, Record<string, unknown>>;
    const developerOps = Object.values(paths)
      .flatMap((item) => Object.values(item as Record<string, { tags?: string[]; security?: unknown }>))
      .filter((op) => op.tags?.includes('Play (developer)') || JSON.stringify(op.security).includes('hmac'));
    expect(developerOps.length).toBeGreaterThanOrEqual(12);
    for (const op of developerOps) {
      const schemes = (op.security as Array<Record<string, unknown>>).map((s) => Object.keys(s)[0]);
      expect(schemes).toContain('hmac');
      expect(schemes).toContain('bearer');
    }
  });
});
