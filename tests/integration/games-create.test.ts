import { randomBytes, randomUUID } from 'node:crypto';
import bs58 from 'bs58';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as createGame } from '../../functions/games/create-game.js';
import { handler as getMyStats } from '../../functions/user/get-my-stats.js';
import { dataUri, gif, jpeg, paddedPng, png, webp } from '../fixtures/images/build.js';
import { gameBody, multipart, postGame } from '../helpers/games.js';
import { invoke } from '../helpers/http.js';
import { createDeveloper, type Developer, hmacHeaders } from '../helpers/users.js';

let dev: Developer;
beforeAll(async () => {
  dev = await createDeveloper();
});

/** The developer's gamesRegistered counter, read through GET /user/me/stats. */
const gamesRegistered = async (developer: Developer) => {
  const stats = await invoke<{ data: { gamesRegistered: number } }>(getMyStats, {
    method: 'GET',
    path: '/user/me/stats',
    headers: hmacHeaders(developer, 'GET', '/user/me/stats'),
  });
  expect(stats.status).toBe(200);
  return stats.body.data.gamesRegistered;
};

const errorOf = (res: { body: unknown }) =>
  (res.body as { error: { code: string; message: string; details: Array<{ path: string }> } }).error;

describe('POST /games (JSON)', () => {
  it('registers a game with a base64 image and answers 201 with the full game', async () => {
    const res = await postGame(
      dev,
      gameBody({ isHTMLGame: true, twitter: 'https://x.com/game', maxScorePerSession: 500 }),
    );
    expect(res.status).toBe(201);
    const { game, playerIdToArcId } = res.body.data;
    expect(game).toMatchObject({
      platform: 'WEB',
      isHTMLGame: true,
      iframable: false,
      hidden: false,
      twitter: 'https://x.com/game',
      maxScorePerSession: 500,
      creatorId: dev.arcId,
      ownerId: null,
      ownershipVerified: false,
      orgRewardsSplit: { [dev.arcId]: 10_000 },
      totalRewardsPoolValueUsd: 0,
      totalRewardsAllocatedUsd: 0,
      estimatedDailyRewardsUsd: 0,
    });
    expect(game.imageUrl).toMatch(new RegExp(`/games/${game.id}/image-[0-9a-f]{16}\\.png$`));
    expect(game.imageUrl?.startsWith(`${process.env.IMAGES_BASE_URL}/games/`)).toBe(true);
    expect(game.coverImageUrl).toBeNull();
    expect(playerIdToArcId).toEqual({});
    // The stored object is the sniffed PNG.
    const stored = await fetch(game.imageUrl ?? '');
    expect(stored.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await stored.arrayBuffer()).equals(png())).toBe(true);
  });

  it.each([
    ['jpeg', jpeg(), 'jpg'],
    ['gif', gif(), 'gif'],
    ['webp', webp(), 'webp'],
  ])('accepts %s images', async (format, bytes, extension) => {
    const res = await postGame(
      dev,
      gameBody({ base64Image: dataUri(format, bytes), base64CoverImage: dataUri('png', png(2, 2)) }),
    );
    expect(res.status).toBe(201);
    expect(res.body.data.game.imageUrl).toMatch(new RegExp(`\\.${extension}$`));
    expect(res.body.data.game.coverImageUrl).toMatch(/cover-[0-9a-f]{16}\.png$/);
  });

  it('counts registered games in /user/me/stats', async () => {
    const fresh = await createDeveloper();
    await postGame(fresh, gameBody());
    await postGame(fresh, gameBody());
    expect(await gamesRegistered(fresh)).toBe(2);
  });

  it('answers a retry with the same idempotency key with the first game, registering it once', async () => {
    const fresh = await createDeveloper();
    const body = gameBody({ idempotencyKey: `register-${randomUUID()}` });
    const first = await postGame(fresh, body);
    const retry = await postGame(fresh, { ...body, name: 'Changed on retry' });
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.body.data.game).toEqual(first.body.data.game);
    // Another key, or the same key from another developer, registers a new game.
    const other = await postGame(fresh, { ...body, idempotencyKey: `register-${randomUUID()}` });
    const stranger = await postGame(await createDeveloper(), body);
    expect(new Set([first, other, stranger].map((r) => r.body.data.game.id)).size).toBe(3);
    expect(await gamesRegistered(fresh)).toBe(2);
  });

  it('registers one game when 20 requests race with the same idempotency key', async () => {
    const fresh = await createDeveloper();
    const body = gameBody({ idempotencyKey: `race-${randomUUID()}` });
    // Distinct timestamps: an HMAC signature is single-use.
    const now = Date.now();
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        invoke<{ data: { game: { id: string } } }>(createGame, {
          method: 'POST',
          path: '/games',
          headers: hmacHeaders(fresh, 'POST', '/games', { timestamp: now - i }),
          body,
        }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(new Set(responses.map((r) => r.body.data.game.id)).size).toBe(1);
    expect(await gamesRegistered(fresh)).toBe(1);
  });

  it('refuses a malformed idempotency key with 400', async () => {
    const res = await postGame(dev, gameBody({ idempotencyKey: 'has spaces' }));
    expect(res.status).toBe(400);
    expect(res.body.error?.code).toBe('VALIDATION_ERROR');
  });

  it('refuses a jwksUrl on a private, link-local or metadata address when it is set, naming the field', async () => {
    for (const jwksUrl of [
      'https://10.0.0.7/.well-known/jwks.json',
      'http://169.254.169.254/latest/meta-data',
      'https://[fd00::1]/jwks.json',
    ]) {
      const res = await postGame(dev, gameBody({ jwksUrl }));
      expect(res.status, jwksUrl).toBe(400);
      expect(errorOf(res).code).toBe('VALIDATION_ERROR');
      expect(errorOf(res).details).toEqual([
        {
          path: 'jwksUrl',
          message: expect.stringMatching(/^refused: (private|linkLocal|uniqueLocal) address/),
        },
      ]);
    }
    // A public host name that does not resolve here passes: each fetch checks again.
    expect((await postGame(dev, gameBody({ jwksUrl: 'https://auth.game.example/jwks.json' }))).status).toBe(
      201,
    );
  });

  it('lists every missing required field', async () => {
    const res = await postGame(dev, { base64Image: dataUri('png', png()) });
    expect(res.status).toBe(400);
    expect(errorOf(res).code).toBe('VALIDATION_ERROR');
    expect(
      errorOf(res)
        .details.map((d) => d.path)
        .sort(),
    ).toEqual(['description', 'gameUrl', 'name', 'platform']);
  });

  it.each([
    [{ platform: 'PHONE' }, 'platform'],
    [{ gameUrl: 'ftp://game.example' }, 'gameUrl'],
    [{ gameUrl: 'javascript:alert(1)' }, 'gameUrl'],
    [{ twitter: 'not a url' }, 'twitter'],
    [{ maxSessionsPerDay: -1 }, 'maxSessionsPerDay'],
    [{ maxCumulativePointsPerDay: 1.5 }, 'maxCumulativePointsPerDay'],
    [{ hidden: 'maybe' }, 'hidden'],
    [{ name: '   ' }, 'name'],
  ])('rejects %j with VALIDATION_ERROR on %s', async (override, field) => {
    const res = await postGame(dev, gameBody(override));
    expect(res.status).toBe(400);
    expect(errorOf(res).code).toBe('VALIDATION_ERROR');
    expect(errorOf(res).details.map((d) => d.path)).toContain(field);
  });

  it.each([
    ['no image at all', { base64Image: undefined }, 'MISSING_IMAGE'],
    [
      'a cover but no thumbnail',
      { base64Image: undefined, base64CoverImage: dataUri('png', png()) },
      'MISSING_IMAGE',
    ],
    [
      'a value without the data:image/ prefix',
      { base64Image: png().toString('base64') },
      'INVALID_IMAGE_FORMAT',
    ],
    [
      'a data URI without ;base64,',
      { base64Image: `data:image/png,${png().toString('base64')}` },
      'INVALID_IMAGE_FORMAT',
    ],
    ['broken base64', { base64Image: 'data:image/png;base64,@@@@' }, 'INVALID_IMAGE_FORMAT'],
    ['PNG bytes declared as jpeg', { base64Image: dataUri('jpeg', png()) }, 'INVALID_IMAGE_FORMAT'],
    [
      'an SVG',
      {
        base64Image: `data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString('base64')}`,
      },
      'UNSUPPORTED_IMAGE_FORMAT',
    ],
    [
      'HTML declared as png',
      { base64Image: dataUri('png', Buffer.from('<html><script>alert(1)</script></html>')) },
      'UNSUPPORTED_IMAGE_FORMAT',
    ],
    [
      'a BMP',
      { base64Image: `data:image/bmp;base64,${Buffer.from('BM').toString('base64')}` },
      'UNSUPPORTED_IMAGE_FORMAT',
    ],
    [
      'a decompression bomb header',
      { base64Image: dataUri('png', png(100_000, 100_000)) },
      'IMAGE_TOO_LARGE',
    ],
  ])('rejects %s', async (_name, override, code) => {
    const res = await postGame(dev, gameBody(override));
    expect(res.status).toBe(400);
    expect(errorOf(res).code).toBe(code);
  });

  // IMAGE_TOO_LARGE by size is answered for uploads (games-image-upload.test.ts) and in unit tests: a data URI of
  // more than 5 MB makes a body larger than Lambda can receive.
  it('refuses an image over 5 MB as a body too large (413)', async () => {
    const res = await postGame(
      dev,
      gameBody({ base64Image: dataUri('png', paddedPng(5 * 1024 * 1024 + 1)) }),
    );
    expect(res.status).toBe(413);
    expect(errorOf(res).code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('requires an HMAC signature', async () => {
    const res = await invoke(createGame, { method: 'POST', path: '/games', body: gameBody() });
    expect(res.status).toBe(401);
    expect(errorOf(res).code).toBe('UNAUTHORIZED');
  });

  it('ignores server-owned fields in the body', async () => {
    const res = await postGame(
      dev,
      gameBody({
        id: randomUUID(),
        creatorId: randomUUID(),
        ownershipVerified: true,
        totalRewardsPoolValueUsd: 1e6,
        ownerId: randomUUID(),
      }),
    );
    expect(res.status).toBe(201);
    expect(res.body.data.game).toMatchObject({
      creatorId: dev.arcId,
      ownershipVerified: false,
      ownerId: null,
      totalRewardsPoolValueUsd: 0,
    });
  });
});

describe('POST /games (multipart)', () => {
  const send = async (fields: Parameters<typeof multipart>[0]) => {
    const form = await multipart(fields);
    return invoke<{
      data: {
        game: {
          imageUrl: string;
          isHTMLGame: boolean;
          maxScorePerSession: number;
          orgRewardsSplit: Record<string, number>;
        };
      };
    }>(createGame, {
      method: 'POST',
      path: '/games',
      headers: { ...hmacHeaders(dev, 'POST', '/games'), 'content-type': form.contentType },
      rawBody: form.body,
    });
  };
  const base = {
    name: 'Multipart game',
    description: 'desc',
    gameUrl: 'https://game.example',
    platform: 'DESKTOP',
  };

  it('accepts a file upload with text fields', async () => {
    const res = await send({
      ...base,
      isHTMLGame: 'true',
      maxScorePerSession: '250',
      image: { bytes: gif(), filename: 'thumb.gif', type: 'image/gif' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.game).toMatchObject({ isHTMLGame: true, maxScorePerSession: 250 });
    expect(res.body.data.game.imageUrl).toMatch(/\.gif$/);
  });

  it('prefers the file over base64Image, and decides the format by the bytes, not the declared type', async () => {
    const res = await send({
      ...base,
      base64Image: dataUri('jpeg', jpeg()),
      image: { bytes: png(), filename: 'thumb.jpg', type: 'image/jpeg' },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.game.imageUrl).toMatch(/\.png$/);
  });

  it('takes orgRewardsSplit as JSON text', async () => {
    const wallet = bs58.encode(randomBytes(32));
    const res = await send({
      ...base,
      image: { bytes: png(), filename: 'a.png', type: 'image/png' },
      orgRewardsSplit: JSON.stringify({ [dev.arcId]: 5000, [`sol:${wallet}`]: 5000 }),
    });
    expect(res.status).toBe(201);
  });

  it('rejects a non-image file and a missing file', async () => {
    const svg = await send({
      ...base,
      image: {
        bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
        filename: 'a.png',
        type: 'image/png',
      },
    });
    expect(svg.status).toBe(400);
    expect(errorOf(svg).code).toBe('UNSUPPORTED_IMAGE_FORMAT');
    const none = await send(base);
    expect(errorOf(none).code).toBe('MISSING_IMAGE');
  });
});

describe('orgRewardsSplit', () => {
  const wallet = () => `sol:${bs58.encode(randomBytes(32))}`;

  it('resolves identifiers, creating users for new wallets and emails, and keeps the split pending until ownership is proved', async () => {
    const w = wallet();
    const email = `email:${randomUUID().slice(0, 8)}@example.com`;
    const res = await postGame(
      dev,
      gameBody({ orgRewardsSplit: { [dev.arcId]: 6000, [w]: 3000, [email]: 1000 } }),
    );
    expect(res.status).toBe(201);
    const { game, playerIdToArcId } = res.body.data;
    expect(Object.keys(playerIdToArcId).sort()).toEqual([dev.arcId, w, email].sort());
    expect(playerIdToArcId[dev.arcId]).toBe(dev.arcId);
    expect(game.requestedOrgRewardsSplit).toEqual({
      [dev.arcId]: 6000,
      [playerIdToArcId[w] ?? '']: 3000,
      [playerIdToArcId[email] ?? '']: 1000,
    });
    // Rule 6: not verified yet, so the creator gets everything.
    expect(game.orgRewardsSplit).toEqual({ [dev.arcId]: 10_000 });
  });

  it('treats an empty split as 100% to the creator', async () => {
    const res = await postGame(dev, gameBody({ orgRewardsSplit: {} }));
    expect(res.status).toBe(201);
    expect(res.body.data.game.orgRewardsSplit).toEqual({ [dev.arcId]: 10_000 });
  });

  it.each([
    ['a sum of 9,999', () => ({ [dev.arcId]: 9_999 }), '9999'],
    ['a sum of 10,001', () => ({ [dev.arcId]: 10_001 }), '10001'],
    ['a negative share', () => ({ [wallet()]: -500, [dev.arcId]: 10_500 }), '-500'],
    ['a fractional share', () => ({ [dev.arcId]: 9_999.5, [wallet()]: 0.5 }), '9999.5'],
    ['an unknown Arc ID', () => ({ [randomUUID()]: 10_000 }), 'no user'],
    ['a malformed identifier', () => ({ 'sol:0OIl': 10_000 }), 'sol:0OIl'],
    ['an invalid did', () => ({ 'did:local:Bad Name': 10_000 }), 'did:local'],
    [
      'one wallet under its short and long prefix',
      () => {
        const key = bs58.encode(randomBytes(32));
        return { [`sol:${key}`]: 5_000, [`solana:${key}`]: 5_000 };
      },
      'same user twice',
    ],
    [
      'the creator by Arc ID and by did',
      () => ({ [dev.arcId]: 5_000, [dev.subject]: 5_000 }),
      'same user twice',
    ],
  ])('rejects %s with INVALID_REWARDS_SPLIT', async (_name, split, mention) => {
    const res = await postGame(dev, gameBody({ orgRewardsSplit: split() }));
    expect(res.status).toBe(400);
    expect(errorOf(res).code).toBe('INVALID_REWARDS_SPLIT');
    expect(errorOf(res).message).toContain(mention);
  });
});
