import { randomUUID } from 'node:crypto';
import { handler as createGame } from '../../functions/games/create-game.js';
import type { GameView } from '../../lib/games/contracts.js';
import { dataUri, png } from '../fixtures/images/build.js';
import { invoke } from './http.js';
import { type Developer, hmacHeaders } from './users.js';

export interface CreatedGame {
  game: GameView;
  playerIdToArcId: Record<string, string>;
}

/** A valid registration body; fields can be overridden per test. */
export const gameBody = (overrides: Record<string, unknown> = {}) => ({
  name: `Game ${randomUUID().slice(0, 8)}`,
  description: 'A test game',
  gameUrl: 'https://game.example/play',
  platform: 'WEB',
  base64Image: dataUri('png', png()),
  ...overrides,
});

/** POST /games as a developer, through the real handler. */
export const postGame = (dev: Developer, body: unknown) =>
  invoke<{ data: CreatedGame; error?: { code: string; message: string } }>(createGame, {
    method: 'POST',
    path: '/games',
    headers: hmacHeaders(dev, 'POST', '/games'),
    body,
  });

/** Register a game and return it (fails the test if registration fails). */
export const registerGame = async (
  dev: Developer,
  overrides: Record<string, unknown> = {},
): Promise<GameView> => {
  const res = await postGame(dev, gameBody(overrides));
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${res.text}`);
  return res.body.data.game;
};

/** A multipart/form-data body built by undici's FormData, as a browser or SDK would send it. */
export const multipart = async (
  fields: Record<string, string | { bytes: Buffer; filename: string; type: string }>,
) => {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value === 'string') form.append(name, value);
    else form.append(name, new Blob([value.bytes], { type: value.type }), value.filename);
  }
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return {
    contentType: request.headers.get('content-type') ?? '',
    body: Buffer.from(await request.arrayBuffer()),
  };
};
