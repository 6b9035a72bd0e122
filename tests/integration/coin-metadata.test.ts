// GET /games/id/{id}/coin-metadata.json: the document a game coin's on-mint `uri` points at, in the shape wallets
// read (not the API's `data` envelope), and the launch pointing its uri there.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { handler } from '../../functions/games/get-coin-metadata.js';
import { getGame, saveGame } from '../../lib/games/repository.js';
import { registerGame } from '../helpers/games.js';
import { invoke } from '../helpers/http.js';
import { createDeveloper } from '../helpers/users.js';

const metadata = (id: string) =>
  invoke<Record<string, unknown>>(handler, {
    method: 'GET',
    path: `/games/id/${id}/coin-metadata.json`,
    pathParameters: { id },
  });

describe('GET /games/id/{id}/coin-metadata.json', () => {
  it('answers the token metadata JSON itself: name, description, image, external_url; the symbol once a coin exists', async () => {
    const game = await registerGame(await createDeveloper(), { name: `Meta ${randomUUID().slice(0, 6)}` });
    const before = await metadata(game.id);
    expect(before.status).toBe(200);
    expect(before.headers['cache-control']).toBe('public, max-age=300');
    expect(before.body).toEqual({
      name: game.name,
      description: game.description,
      image: game.imageUrl,
      external_url: game.gameUrl,
    });

    const record = await getGame(game.id);
    if (!record) throw new Error('game missing');
    await saveGame(
      {
        ...record,
        version: record.version + 1,
        coin: {
          coinMint: randomUUID(),
          gameCoinSymbol: 'META',
          emissionDays: 7,
          status: 'active',
          emissionStartAt: null,
          emissionEndAt: null,
        },
      },
      record,
    );
    expect((await metadata(game.id)).body).toMatchObject({ name: game.name, symbol: 'META' });
  });

  it('answers 404 for an unknown game and 400 for an id that is not one', async () => {
    const missing = await metadata(randomUUID());
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ error: { code: 'NOT_FOUND' } });
    const bad = await metadata('not-a-uuid');
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: { code: 'VALIDATION_ERROR' } });
  });
});
