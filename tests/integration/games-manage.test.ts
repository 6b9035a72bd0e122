import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as batchByIds } from '../../functions/games/batch-games-by-ids.js';
import { handler as batchByTokenIds } from '../../functions/games/batch-games-by-token-ids.js';
import { handler as claimOwnership } from '../../functions/games/claim-game-ownership.js';
import { handler as getGame } from '../../functions/games/get-game.js';
import { handler as getGamesByToken } from '../../functions/games/get-games-by-token.js';
import { handler as listGames } from '../../functions/games/list-games.js';
import { handler as listMyGames } from '../../functions/games/list-my-games.js';
import { handler as toggleVisibility } from '../../functions/games/toggle-game-visibility.js';
import { handler as updateGame } from '../../functions/games/update-game.js';
import { handler as getDevPoints } from '../../functions/play-developer/get-dev-points.js';
import type { GameView } from '../../lib/games/contracts.js';
import { linkCoin, getGame as loadGame, saveGameFigures } from '../../lib/games/repository.js';
import { dataUri, gif } from '../fixtures/images/build.js';
import { registerGame } from '../helpers/games.js';
import { invoke } from '../helpers/http.js';
import { createDeveloper, type Developer, hmacHeaders } from '../helpers/users.js';

let alice: Developer;
let bob: Developer;
beforeAll(async () => {
  [alice, bob] = await Promise.all([createDeveloper(), createDeveloper()]);
});

type Res = {
  status: number;
  body: { data: GameView & { game: GameView }; error: { code: string; message: string } };
};
const signed = (
  dev: Developer,
  method: string,
  path: string,
  extra: { pathParameters?: Record<string, string>; body?: unknown; query?: Record<string, string> } = {},
) => ({
  method,
  path,
  headers: hmacHeaders(dev, method, path),
  ...extra,
});
const update = (dev: Developer, id: string, body: unknown) =>
  invoke(
    updateGame,
    signed(dev, 'POST', `/games/update/${id}`, { pathParameters: { gameId: id }, body }),
  ) as Promise<Res>;
const toggle = (dev: Developer, id: string) =>
  invoke(
    toggleVisibility,
    signed(dev, 'POST', `/games/toggle-visibility/${id}`, { pathParameters: { id } }),
  ) as Promise<Res>;
const claim = (dev: Developer, id: string) =>
  invoke(
    claimOwnership,
    signed(dev, 'POST', `/games/claim-ownership/${id}`, { pathParameters: { gameId: id } }),
  ) as Promise<Res>;
const list = async (query: Record<string, string>) =>
  (await invoke(listGames, { method: 'GET', path: '/games', query })) as unknown as {
    status: number;
    body: {
      data: GameView[];
      meta: { limit: number; offset: number; total: number };
      error?: { code: string };
    };
  };

describe('POST /games/update/{gameId}', () => {
  it('lets the creator change fields, replace the image and clear optional fields', async () => {
    const game = await registerGame(alice, { twitter: 'https://x.com/a' });
    const res = await update(alice, game.id, {
      name: 'Renamed',
      twitter: null,
      base64Image: dataUri('gif', gif()),
      maxSessionsPerDay: 3,
    });
    expect(res.status).toBe(200);
    expect(res.body.data.game).toMatchObject({
      name: 'Renamed',
      twitter: null,
      maxSessionsPerDay: 3,
      description: game.description,
    });
    expect(res.body.data.game.imageUrl).toMatch(/\.gif$/);
  });

  it('cannot set server-owned fields', async () => {
    const game = await registerGame(alice);
    const res = await update(alice, game.id, {
      creatorId: bob.arcId,
      ownerId: bob.arcId,
      ownershipVerified: true,
      totalRewardsPoolValueUsd: 5,
      id: randomUUID(),
    });
    expect(res.status).toBe(200);
    expect(res.body.data.game).toMatchObject({
      id: game.id,
      creatorId: alice.arcId,
      ownerId: null,
      ownershipVerified: false,
      totalRewardsPoolValueUsd: 0,
    });
  });

  it('answers 403 to another developer, 404 for an unknown game, 400 for bad input, 401 without a signature', async () => {
    const game = await registerGame(alice);
    const forbidden = await update(bob, game.id, { name: 'Stolen' });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.code).toBe('FORBIDDEN');
    expect((await loadGame(game.id))?.name).toBe(game.name);
    const missing = await update(alice, randomUUID(), { name: 'x' });
    expect(missing.status).toBe(404);
    expect((await update(alice, game.id, { platform: 'TOASTER' })).status).toBe(400);
    const badId = await update(alice, 'not-a-uuid', { name: 'x' });
    expect(badId.status).toBe(400);
    const anonymous = await invoke(updateGame, {
      method: 'POST',
      path: `/games/update/${game.id}`,
      pathParameters: { gameId: game.id },
      body: { name: 'x' },
    });
    expect(anonymous.status).toBe(401);
  });

  it('sets and clears the airdrop token, which /games/token-id/{tokenId}/full follows', async () => {
    const game = await registerGame(alice);
    const mint = bs58.encode(randomBytes(32));
    expect((await update(alice, game.id, { airdropTokenAddress: mint })).status).toBe(200);
    const linked = await invoke<{ data: GameView[] }>(getGamesByToken, {
      method: 'GET',
      path: `/games/token-id/${mint}/full`,
      pathParameters: { tokenId: mint },
    });
    expect(linked.body.data.map((g) => g.id)).toEqual([game.id]);
    expect(linked.body.data[0]?.tokens).toEqual({ gameCoin: null, airdropTokenAddress: mint });
    await update(alice, game.id, { airdropTokenAddress: null });
    const unlinked = await invoke<{ data: GameView[] }>(getGamesByToken, {
      method: 'GET',
      path: `/games/token-id/${mint}/full`,
      pathParameters: { tokenId: mint },
    });
    expect(unlinked.body.data).toEqual([]);
  });
});

describe('visibility', () => {
  it('hides a game from listings but keeps it by id and in /games/me, then shows it again', async () => {
    const tag = `vis${randomUUID().slice(0, 8)}`;
    const game = await registerGame(alice, { name: `Hidden ${tag}` });
    expect((await list({ query: tag })).body.data.map((g) => g.id)).toEqual([game.id]);

    const hidden = await toggle(alice, game.id);
    expect(hidden.status).toBe(200);
    expect(hidden.body.data.hidden).toBe(true);
    expect((await list({ query: tag })).body.data).toEqual([]);
    const byId = await invoke<{ data: GameView }>(getGame, {
      method: 'GET',
      path: `/games/id/${game.id}`,
      pathParameters: { id: game.id },
    });
    expect(byId.body.data.hidden).toBe(true);
    const mine = await invoke<{ data: GameView[] }>(
      listMyGames,
      signed(alice, 'GET', '/games/me', { query: { limit: '100' } }),
    );
    expect(mine.body.data.map((g) => g.id)).toContain(game.id);

    expect((await toggle(alice, game.id)).body.data.hidden).toBe(false);
    expect((await list({ query: tag })).body.data.map((g) => g.id)).toEqual([game.id]);
  });

  it('is owner-only', async () => {
    const game = await registerGame(alice);
    const res = await toggle(bob, game.id);
    expect(res.status).toBe(403);
    expect((await loadGame(game.id))?.hidden).toBe(false);
    expect((await toggle(alice, randomUUID())).status).toBe(404);
  });
});

describe('GET /games', () => {
  const tag = `lst${randomUUID().slice(0, 8)}`;
  const games: GameView[] = [];
  beforeAll(async () => {
    for (const name of ['Charlie', 'alpha', 'Bravo']) {
      games.push(await registerGame(alice, { name: `${name} ${tag}`, description: `${name} ${tag}` }));
    }
    // Reward figures are kept by the rewards area; set them directly to check the sort indexes.
    const figures = [
      [30, 1, 200],
      [10, 3, 100],
      [20, 2, 300],
    ];
    for (const [i, game] of games.entries()) {
      const stored = await loadGame(game.id);
      if (!stored) throw new Error('missing game');
      const [pool = 0, allocated = 0, daily = 0] = figures[i] ?? [];
      // Written the way the figures sync writes them (a game change never writes them).
      await saveGameFigures(stored, {
        totalRewardsPoolValueUsd: pool,
        totalRewardsAllocatedUsd: allocated,
        estimatedDailyRewardsUsd: daily,
      });
    }
  });
  const names = (res: { body: { data: GameView[] } }) => res.body.data.map((g) => g.name.split(' ')[0]);

  it.each([
    ['name', 'asc', ['alpha', 'Bravo', 'Charlie']],
    ['name', 'desc', ['Charlie', 'Bravo', 'alpha']],
    ['createdAt', 'asc', ['Charlie', 'alpha', 'Bravo']],
    ['createdAt', 'desc', ['Bravo', 'alpha', 'Charlie']],
    ['totalRewardsPoolValueUsd', 'desc', ['Charlie', 'Bravo', 'alpha']],
    ['totalRewardsAllocatedUsd', 'desc', ['alpha', 'Bravo', 'Charlie']],
    ['estimatedDailyRewardsUsd', 'asc', ['alpha', 'Charlie', 'Bravo']],
  ])('sorts by %s %s', async (sortBy, sort, expected) => {
    const res = await list({ query: tag, sortBy, sort });
    expect(res.status).toBe(200);
    expect(names(res)).toEqual(expected);
    expect(res.body.meta).toEqual({ limit: 50, offset: 0, total: 3 });
  });

  it('defaults to totalRewardsPoolValueUsd desc and paginates with limit and offset', async () => {
    expect(names(await list({ query: tag }))).toEqual(['Charlie', 'Bravo', 'alpha']);
    const page = await list({ query: tag, limit: '1', offset: '1' });
    expect(names(page)).toEqual(['Bravo']);
    expect(page.body.meta).toEqual({ limit: 1, offset: 1, total: 3 });
    expect((await list({ query: tag, offset: '3' })).body.data).toEqual([]);
  });

  it('filters case-insensitively by name or description and adds token info on include_extra', async () => {
    const res = await list({ query: tag.toUpperCase(), include_extra: 'true', sortBy: 'name', sort: 'asc' });
    expect(res.body.data).toHaveLength(3);
    expect(res.body.data[0]?.tokens).toEqual({ gameCoin: null, airdropTokenAddress: null });
    expect((await list({ query: tag })).body.data[0]).not.toHaveProperty('tokens');
  });

  it.each([
    [{ limit: '101' }, 'limit'],
    [{ limit: '0' }, 'limit'],
    [{ offset: '-1' }, 'offset'],
    [{ sort: 'sideways' }, 'sort'],
    [{ sortBy: 'popularity' }, 'sortBy'],
    [{ include_extra: 'yes' }, 'include_extra'],
  ])('rejects %j', async (query, field) => {
    const res = await invoke(listGames, { method: 'GET', path: '/games', query });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      error: { code: 'VALIDATION_ERROR', details: [expect.objectContaining({ path: field })] },
    });
  });
});

describe('GET /games/id/{id} and GET /games/me', () => {
  it('returns one game, 404 for an unknown id, 400 for a malformed one', async () => {
    const game = await registerGame(alice);
    const res = await invoke<{ data: GameView }>(getGame, {
      method: 'GET',
      path: `/games/id/${game.id}`,
      pathParameters: { id: game.id },
      query: { include_tokens: 'true' },
    });
    expect(res.body.data).toMatchObject({
      id: game.id,
      tokens: { gameCoin: null, airdropTokenAddress: null },
    });
    expect(
      (await invoke(getGame, { method: 'GET', path: '/games/id/x', pathParameters: { id: randomUUID() } }))
        .status,
    ).toBe(404);
    expect(
      (await invoke(getGame, { method: 'GET', path: '/games/id/x', pathParameters: { id: 'nope' } })).status,
    ).toBe(400);
  });

  it("lists only the caller's games, newest first, with total", async () => {
    const carol = await createDeveloper();
    const first = await registerGame(carol);
    const second = await registerGame(carol);
    const res = await invoke<{ data: GameView[]; meta: { total: number } }>(
      listMyGames,
      signed(carol, 'GET', '/games/me'),
    );
    expect(res.body.data.map((g) => g.id)).toEqual([second.id, first.id]);
    expect(res.body.meta.total).toBe(2);
    const asc = await invoke<{ data: GameView[] }>(
      listMyGames,
      signed(carol, 'GET', '/games/me', { query: { sort: 'asc', limit: '1' } }),
    );
    expect(asc.body.data.map((g) => g.id)).toEqual([first.id]);
    expect((await invoke(listMyGames, { method: 'GET', path: '/games/me' })).status).toBe(401);
  });
});

describe('POST /games/claim-ownership/{gameId}', () => {
  let server: Server;
  let base: string;
  const pages = new Map<string, string>();
  /** Paths that answer 302 to another URL (an open redirect on the site). */
  const redirects = new Map<string, string>();
  beforeAll(async () => {
    server = createServer((req, res) => {
      const location = redirects.get(req.url ?? '');
      if (location) {
        res.writeHead(302, { location }).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(pages.get(req.url ?? '') ?? '<html><head></head><body></body></html>');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://localhost:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('makes the creator the verified owner when the tag carries their API key, and applies the split', async () => {
    const path = `/${randomUUID()}`;
    pages.set(
      path,
      `<html><head><title>x</title><meta name="arcadia-verification" content="${alice.apiKey}"></head><body></body></html>`,
    );
    const game = await registerGame(alice, {
      gameUrl: `${base}${path}`,
      orgRewardsSplit: { [alice.arcId]: 7000, [bob.arcId]: 3000 },
    });
    expect(game.orgRewardsSplit).toEqual({ [alice.arcId]: 10_000 });
    const res = await claim(alice, game.id);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      ownerId: alice.arcId,
      ownershipVerified: true,
      orgRewardsSplit: { [alice.arcId]: 7000, [bob.arcId]: 3000 },
    });
  });

  it('refuses with 403 when the tag is missing, in the body, or carries another key', async () => {
    for (const html of [
      '<html><head></head><body></body></html>',
      `<html><head></head><body><meta name="arcadia-verification" content="${alice.apiKey}"></body></html>`,
      `<html><head><meta name="arcadia-verification" content="${bob.apiKey}"></head></html>`,
    ]) {
      const path = `/${randomUUID()}`;
      pages.set(path, html);
      const game = await registerGame(alice, { gameUrl: `${base}${path}` });
      const res = await claim(alice, game.id);
      expect(res.status).toBe(403);
      expect((await loadGame(game.id))?.ownershipVerified).toBe(false);
    }
  });

  describe('ownership by proof: whoever serves the tag with their own API key owns the game', () => {
    const tagged = (...devs: Developer[]) =>
      `<html><head>${devs.map((d) => `<meta name="arcadia-verification" content="${d.apiKey}">`).join('')}</head></html>`;
    /** A game alice registered (with a requested split) on a page that carries the given developers' tags. */
    const squatted = async (...devs: Developer[]) => {
      const path = `/${randomUUID()}`;
      pages.set(path, tagged(...devs));
      const game = await registerGame(alice, {
        gameUrl: `${base}${path}`,
        orgRewardsSplit: { [alice.arcId]: 7000, [bob.arcId]: 3000 },
      });
      return { game, path };
    };
    const points = (dev: Developer, gameId: string) =>
      invoke(getDevPoints, {
        method: 'GET',
        path: '/play/dev/points',
        headers: hmacHeaders(dev, 'GET', '/play/dev/points'),
        query: { gameId, playerIds: dev.arcId },
      });
    const mine = async (dev: Developer) =>
      (
        await invoke<{ data: GameView[] }>(
          listMyGames,
          signed(dev, 'GET', '/games/me', { query: { limit: '100' } }),
        )
      ).body.data.map((g) => g.id);

    it('a domain owner who is not the creator takes ownership; the requested split is dropped for theirs', async () => {
      const { game } = await squatted(bob);
      const res = await claim(bob, game.id);
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        creatorId: alice.arcId,
        ownerId: bob.arcId,
        ownershipVerified: true,
        orgRewardsSplit: { [bob.arcId]: 10_000 },
        requestedOrgRewardsSplit: {},
      });
      expect(await loadGame(game.id)).toMatchObject({
        creatorId: alice.arcId,
        ownerId: bob.arcId,
        ownershipVerified: true,
        version: 2,
      });
    });

    it('then the owner runs the game and alone holds the money rights; the creator keeps editing the listing', async () => {
      const { game, path } = await squatted(bob);
      expect((await claim(bob, game.id)).status).toBe(200);
      // Both edit the listing: fields, visibility, /games/me.
      for (const dev of [bob, alice]) {
        const renamed = await update(dev, game.id, { name: `By ${dev.arcId.slice(0, 8)}` });
        expect(renamed.status, dev.arcId).toBe(200);
        expect((await toggle(dev, game.id)).status, dev.arcId).toBe(200);
        expect(await mine(dev), dev.arcId).toContain(game.id);
      }
      // /play/dev follows the domain: the points saved decide what players are paid.
      expect((await points(bob, game.id)).status).toBe(200);
      const ousted = await points(alice, game.id);
      expect(ousted.status).toBe(403);
      expect((ousted.body as { error: { code: string } }).error.code).toBe('FORBIDDEN');
      // The split, the airdrop token and the origin are the owner's: the creator is refused and changes nothing.
      const before = await loadGame(game.id);
      for (const body of [
        { orgRewardsSplit: { [alice.arcId]: 10_000 } },
        { airdropTokenAddress: bs58.encode(randomBytes(32)) },
        { gameUrl: `${base.replace('localhost', '127.0.0.1')}${path}` },
      ]) {
        const refused = await update(alice, game.id, body);
        expect(refused.status, JSON.stringify(body)).toBe(403);
        expect(refused.body.error.code).toBe('FORBIDDEN');
      }
      expect(await loadGame(game.id)).toEqual(before);
      // A new path on the proved origin stays the creator's to change.
      expect((await update(alice, game.id, { gameUrl: `${base}${path}?v=2` })).status).toBe(200);
      const split = await update(bob, game.id, {
        orgRewardsSplit: { [bob.arcId]: 6000, [alice.arcId]: 4000 },
      });
      expect(split.status).toBe(200);
      expect(split.body.data.game).toMatchObject({
        ownerId: bob.arcId,
        ownershipVerified: true,
        orgRewardsSplit: { [bob.arcId]: 6000, [alice.arcId]: 4000 },
      });
      const mint = bs58.encode(randomBytes(32));
      expect((await update(bob, game.id, { airdropTokenAddress: mint })).status).toBe(200);
      // A stranger is neither: 403 everywhere.
      const carol = await createDeveloper();
      expect((await update(carol, game.id, { name: 'x' })).status).toBe(403);
      expect((await toggle(carol, game.id)).status).toBe(403);
      expect((await points(carol, game.id)).status).toBe(403);
    });

    it('the last valid proof wins: a previous owner loses the game to the next one', async () => {
      const carol = await createDeveloper();
      const { game } = await squatted(bob, carol);
      expect((await claim(bob, game.id)).body.data).toMatchObject({ ownerId: bob.arcId });
      const taken = await claim(carol, game.id);
      expect(taken.status).toBe(200);
      expect(taken.body.data).toMatchObject({
        ownerId: carol.arcId,
        ownershipVerified: true,
        orgRewardsSplit: { [carol.arcId]: 10_000 },
      });
      expect((await update(bob, game.id, { name: 'Mine again' })).status).toBe(403);
      expect(await mine(bob)).not.toContain(game.id);
      expect(await mine(carol)).toContain(game.id);
      // A new proof undoes a change of control: bob proving again takes it back.
      expect((await claim(bob, game.id)).body.data).toMatchObject({ ownerId: bob.arcId });
      expect((await update(bob, game.id, { name: 'Mine again' })).status).toBe(200);
      // The creator proving it takes it back too.
      pages.set(new URL(game.gameUrl).pathname, tagged(alice));
      expect((await claim(alice, game.id)).body.data).toMatchObject({ ownerId: alice.arcId });
    });

    it("an open redirect on the owner's origin hands nothing over: the tag must come from the game's origin (403), the owner keeps control", async () => {
      const { game, path } = await squatted(bob);
      expect((await claim(bob, game.id)).status).toBe(200);
      // Alice, the creator, serves her tag on her own origin (the same server named 127.0.0.1) and points gameUrl at
      // an open redirect on bob's origin that sends the fetch there (a same-origin gameUrl is hers to change).
      const hers = base.replace('localhost', '127.0.0.1');
      const herPage = `/${randomUUID()}`;
      pages.set(herPage, tagged(alice));
      const hop = `/${randomUUID()}`;
      redirects.set(hop, `${hers}${herPage}`);
      expect((await update(alice, game.id, { gameUrl: `${base}${hop}` })).status).toBe(200);
      const refused = await claim(alice, game.id);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({
        code: 'FORBIDDEN',
        message: expect.stringMatching(/another origin/),
      });
      expect(await loadGame(game.id)).toMatchObject({ ownerId: bob.arcId, ownershipVerified: true });
      // So she cannot move the game to her origin; bob keeps every right.
      expect((await update(alice, game.id, { gameUrl: `${hers}${herPage}` })).status).toBe(403);
      expect((await points(bob, game.id)).status).toBe(200);
      // A redirect within the game's origin is followed: bob proves through one.
      const inside = `/${randomUUID()}`;
      redirects.set(inside, path);
      expect((await update(bob, game.id, { gameUrl: `${base}${inside}` })).status).toBe(200);
      expect((await claim(bob, game.id)).body.data).toMatchObject({
        ownerId: bob.arcId,
        ownershipVerified: true,
      });
    });

    it('concurrent claims both land, one after the other: the game ends with one of them as owner', async () => {
      const carol = await createDeveloper();
      const { game } = await squatted(bob, carol);
      const [first, second] = await Promise.all([claim(bob, game.id), claim(carol, game.id)]);
      expect([first.status, second.status]).toEqual([200, 200]);
      const stored = await loadGame(game.id);
      expect([bob.arcId, carol.arcId]).toContain(stored?.ownerId);
      expect(stored?.version).toBe(3);
    });

    it("a caller whose key is not in the tag is refused, and another user's tag does not make them owner", async () => {
      const carol = await createDeveloper();
      // The page carries alice's key (the creator's) and bob's: carol is refused.
      const { game } = await squatted(alice, bob);
      const refused = await claim(carol, game.id);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe('FORBIDDEN');
      expect(await loadGame(game.id)).toMatchObject({ ownerId: null, ownershipVerified: false, version: 1 });
      // Bob owns it now; a page serving only bob's key still refuses carol and keeps bob.
      expect((await claim(bob, game.id)).status).toBe(200);
      expect((await claim(carol, game.id)).status).toBe(403);
      expect((await loadGame(game.id))?.ownerId).toBe(bob.arcId);
    });
  });

  describe('after a gameUrl change', () => {
    /** A game of alice's with a requested split, verified on `${base}${path}`. */
    const verifiedGame = async () => {
      const path = `/${randomUUID()}`;
      pages.set(
        path,
        `<html><head><meta name="arcadia-verification" content="${alice.apiKey}"></head></html>`,
      );
      const game = await registerGame(alice, {
        gameUrl: `${base}${path}`,
        orgRewardsSplit: { [alice.arcId]: 7000, [bob.arcId]: 3000 },
      });
      expect((await claim(alice, game.id)).body.data).toMatchObject({ ownershipVerified: true });
      return { game, path };
    };
    const requested = () => ({ [alice.arcId]: 7000, [bob.arcId]: 3000 });

    it('keeps the verification and the split when only the path changes (same origin)', async () => {
      const { game } = await verifiedGame();
      const res = await update(alice, game.id, { gameUrl: `${base}/elsewhere/${randomUUID()}?v=2` });
      expect(res.status).toBe(200);
      expect(res.body.data.game).toMatchObject({
        ownerId: alice.arcId,
        ownershipVerified: true,
        orgRewardsSplit: requested(),
      });
      expect((await loadGame(game.id))?.ownershipVerified).toBe(true);
    });

    it('resets the verification and the effective split on another origin until it is claimed again', async () => {
      const { game, path } = await verifiedGame();
      // Same server, another host name: another origin, whose page alice has not proved.
      const moved = `${base.replace('localhost', '127.0.0.1')}${path}`;
      const res = await update(alice, game.id, { gameUrl: moved });
      expect(res.status).toBe(200);
      expect(res.body.data.game).toMatchObject({
        gameUrl: moved,
        ownerId: alice.arcId,
        ownershipVerified: false,
        orgRewardsSplit: { [alice.arcId]: 10_000 },
        requestedOrgRewardsSplit: requested(),
      });
      expect((await loadGame(game.id))?.ownershipVerified).toBe(false);
      const read = (await invoke(getGame, {
        method: 'GET',
        path: `/games/id/${game.id}`,
        pathParameters: { id: game.id },
      })) as Res;
      expect(read.body.data).toMatchObject({
        ownershipVerified: false,
        orgRewardsSplit: { [alice.arcId]: 10_000 },
      });
      // The owner can prove the new origin; the requested split then applies again.
      const reclaimed = await claim(alice, game.id);
      expect(reclaimed.status).toBe(200);
      expect(reclaimed.body.data).toMatchObject({ ownershipVerified: true, orgRewardsSplit: requested() });
    });

    it.each([
      ['scheme', (url: URL) => `https://${url.host}${url.pathname}`],
      ['port', (url: URL) => `http://${url.hostname}:${Number(url.port) + 1}${url.pathname}`],
    ])('resets the verification when the %s changes', async (_part, move) => {
      const { game, path } = await verifiedGame();
      const res = await update(alice, game.id, { gameUrl: move(new URL(`${base}${path}`)) });
      expect(res.status).toBe(200);
      expect(res.body.data.game).toMatchObject({
        ownershipVerified: false,
        orgRewardsSplit: { [alice.arcId]: 10_000 },
      });
    });
  });

  it.each(['http://169.254.169.254/latest/meta-data/', 'http://10.0.0.1/', 'https://game.example:8443/'])(
    'refuses to fetch %s (SSRF) with a 400 naming the reason',
    async (gameUrl) => {
      const game = await registerGame(alice, { gameUrl });
      const res = await claim(alice, game.id);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
      expect(res.body.error.message).toContain('could not be fetched');
    },
  );
});

describe('batch reads', () => {
  it('returns games for ids in one call and reports the missing ones', async () => {
    const [a, b] = [await registerGame(alice), await registerGame(bob)];
    const ghost = randomUUID();
    const res = await invoke<{ data: { games: GameView[]; missing: string[] } }>(batchByIds, {
      method: 'POST',
      path: '/games/batch/ids',
      body: { ids: [a.id, ghost, b.id] },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.games.map((g) => g.id)).toEqual([a.id, b.id]);
    expect(res.body.data.missing).toEqual([ghost]);
  });

  it.each([0, 101])('rejects %i ids', async (n) => {
    const res = await invoke(batchByIds, {
      method: 'POST',
      path: '/games/batch/ids',
      body: { ids: Array.from({ length: n }, () => randomUUID()) },
    });
    expect(res.status).toBe(400);
  });

  it('accepts exactly 100 ids', async () => {
    const res = await invoke(batchByIds, {
      method: 'POST',
      path: '/games/batch/ids',
      body: { ids: Array.from({ length: 100 }, () => randomUUID()) },
    });
    expect(res.status).toBe(200);
  });

  it('returns games for coin addresses and reports unknown ones', async () => {
    const game = await registerGame(alice);
    const coin = bs58.encode(randomBytes(32));
    const unknown = bs58.encode(randomBytes(32));
    await linkCoin(coin, game.id);
    const res = await invoke<{ data: { games: GameView[]; missing: string[] } }>(batchByTokenIds, {
      method: 'POST',
      path: '/games/batch/token-ids',
      body: { tokenIds: [coin, unknown] },
    });
    expect(res.body.data.games.map((g) => g.id)).toEqual([game.id]);
    expect(res.body.data.missing).toEqual([unknown]);
    const bad = await invoke(batchByTokenIds, {
      method: 'POST',
      path: '/games/batch/token-ids',
      body: { tokenIds: ['0xnot-base58'] },
    });
    expect(bad.status).toBe(400);
  });
});
