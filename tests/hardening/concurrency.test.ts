// Concurrency invariants under ≥ 20 parallel requests through the real handlers against the local stack:
// one user per new identity, one success per signature, exact rate-limit admission, and game toggles whose
// final state matches the number of successful writes.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { handler as toggleHandler } from '../../functions/games/toggle-game-visibility.js';
import { handler as createHmacSignature } from '../../functions/user/create-hmac-signature.js';
import { handler as getMe } from '../../functions/user/get-me.js';
import { getGame } from '../../lib/games/repository.js';
import { registerGame } from '../helpers/games.js';
import { invoke } from '../helpers/http.js';
import { idpToken } from '../helpers/idp.js';
import { createDeveloper, hmacHeaders } from '../helpers/users.js';

const PARALLEL = 25;
const codeOf = (res: { body: unknown }) => (res.body as { error?: { code: string } }).error?.code;
const togglePath = (id: string) => `/games/toggle-visibility/${id}`;

describe('concurrency', () => {
  it(`identifier creation: ${PARALLEL} parallel first calls of one new identity make one user and one API key`, async () => {
    const name = `race-${randomUUID().slice(0, 8)}`;
    const token = await idpToken(name);
    const responses = await Promise.all(
      Array.from({ length: PARALLEL }, () =>
        invoke<{ data: { arcId: string; apiKey: string; secretKey?: string } }>(getMe, {
          method: 'GET',
          path: '/user/me',
          headers: { authorization: `Bearer ${token}` },
        }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(responses.map(() => 200));
    expect(new Set(responses.map((r) => r.body.data.arcId)).size).toBe(1);
    expect(new Set(responses.map((r) => r.body.data.apiKey)).size).toBe(1);
    // The secret is shown once: only the request that created the key carries it.
    expect(responses.filter((r) => r.body.data.secretKey).length).toBeLessThanOrEqual(1);
  });

  it(`replayed signature: ${PARALLEL} parallel copies of one signed request, exactly one succeeds`, async () => {
    const dev = await createDeveloper();
    const game = await registerGame(dev);
    const headers = hmacHeaders(dev, 'POST', togglePath(game.id));
    const responses = await Promise.all(
      Array.from({ length: PARALLEL }, () =>
        invoke(toggleHandler, {
          method: 'POST',
          path: togglePath(game.id),
          pathParameters: { id: game.id },
          headers,
        }),
      ),
    );
    expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of responses.filter((r) => r.status !== 200)) {
      expect(r.status).toBe(401);
      expect(codeOf(r)).toBe('INVALID_SIGNATURE');
    }
    const after = await getGame(game.id);
    expect(after?.hidden).toBe(!game.hidden);
  });

  it('rate-limit counter: of 75 parallel requests from one IP exactly 60 are admitted', async () => {
    const sourceIp = `198.51.100.7:${randomUUID()}`;
    const body = { secretKey: 'sk', method: 'GET', path: '/x', apiKey: randomUUID() };
    const responses = await Promise.all(
      Array.from({ length: 75 }, () =>
        invoke(createHmacSignature, { method: 'POST', path: '/user/hmac-signature', body, sourceIp }),
      ),
    );
    expect(responses.filter((r) => r.status === 200)).toHaveLength(60);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(15);
    const remaining = responses
      .filter((r) => r.status === 200)
      .map((r) => Number(r.headers['ratelimit-remaining']));
    // Every admitted request saw its own counter value: 59 … 0, each once.
    expect(new Set(remaining).size).toBe(60);
  });

  it(`games toggle-visibility: ${PARALLEL} parallel toggles leave the state the successful ones imply`, async () => {
    const dev = await createDeveloper();
    const game = await registerGame(dev);
    const before = await getGame(game.id);
    if (!before) throw new Error('game not stored');
    const base = Date.now();
    const responses = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) =>
        invoke<{ data: { hidden: boolean } }>(toggleHandler, {
          method: 'POST',
          path: togglePath(game.id),
          pathParameters: { id: game.id },
          // Distinct timestamps: distinct signatures, so the replay guard admits every request.
          headers: hmacHeaders(dev, 'POST', togglePath(game.id), { timestamp: base - i }),
        }),
      ),
    );
    const ok = responses.filter((r) => r.status === 200);
    const conflicts = responses.filter((r) => r.status === 409);
    expect(ok.length + conflicts.length, responses.map((r) => `${r.status}`).join(',')).toBe(PARALLEL);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const r of conflicts) expect(codeOf(r)).toBe('CONFLICT');
    const after = await getGame(game.id);
    expect(after?.hidden).toBe(ok.length % 2 === 1 ? !game.hidden : game.hidden);
    expect(after?.version).toBe(before.version + ok.length);
    // Each successful toggle answered a distinct state transition: the answers alternate.
    const hiddenCount = ok.filter((r) => r.body.data.hidden).length;
    expect(Math.abs(hiddenCount - (ok.length - hiddenCount))).toBeLessThanOrEqual(1);
  });
});
