// The demo game's web server (`npm run dev` starts it; the demo URL is printed): serves /demo, a small HTML5
// game that plays through the SDK's browser play client (sdk/dist/arcadia-play.js), and stands in for the
// game studio's backend: it signs players in with the local identity provider and registers the demo game once
// with the studio's API key (never sent to the page). The page reads the boards itself, with its session token.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { ArcadiaError, createArcadiaClient, unwrap } from '../../sdk/src/index.js';
import { fetchLocalToken } from '../token.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const sdkDir = join(here, '../../sdk');
/** The demo studio's identity; the game is registered once per data directory under this idempotency key. */
const STUDIO = 'demo-studio';
const GAME_KEY = 'arcadia-demo-game-v1';
/** The demo's recurring tournament, created once per data directory (found again by its title). */
const TOURNAMENT_TITLE = 'Hourly Star Cup';

export interface DemoServer {
  url: string;
  stop(): Promise<void>;
}

export interface DemoServerOptions {
  port: number;
  host?: string;
  apiUrl: string;
  idpUrl: string;
}

const DEMO_THUMBNAIL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

interface Studio {
  gameId: string;
  studio: ReturnType<typeof createArcadiaClient>;
}

/** The studio's client and its demo game: its user and key are created on first use, its secret renewed here. */
const setUpStudio = async (apiUrl: string, idpUrl: string): Promise<Studio> => {
  const { token } = await fetchLocalToken(STUDIO, idpUrl);
  const asUser = createArcadiaClient({ baseUrl: apiUrl, bearerToken: token });
  await asUser.GET('/user/me');
  const keys = unwrap(await asUser.POST('/user/reset-secret'));
  const studio = createArcadiaClient({ baseUrl: apiUrl, hmac: keys });
  const { game } = unwrap(
    await studio.POST('/games', {
      body: {
        name: 'Star Catcher (demo)',
        description: 'The Arcadia demo game: catch stars, commit your run, see your rank.',
        gameUrl: 'http://localhost/demo',
        platform: 'WEB',
        idempotencyKey: GAME_KEY,
        maxScorePerSession: 10_000,
        // A game needs an image: a 1×1 PNG stands in for the demo's thumbnail.
        base64Image: DEMO_THUMBNAIL,
      },
    }),
  );
  await ensureTournament(studio, game.id);
  return { gameId: game.id, studio };
};

/**
 * An hourly tournament for the demo game, so the page has one to show: it starts now (to the second, which the
 * API accepts as not in the past), so that a run played at once counts in it; entrants must join.
 */
const ensureTournament = async (studio: Studio['studio'], gameId: string) => {
  const listed = unwrap(
    await studio.GET('/tournaments/{gameId}', { params: { path: { gameId }, query: { limit: 100 } } }),
  );
  if (listed.some((t) => t.title === TOURNAMENT_TITLE && t.status === 'scheduled')) return;
  unwrap(
    await studio.POST('/tournaments/{gameId}', {
      params: { path: { gameId } },
      body: {
        title: TOURNAMENT_TITLE,
        description: 'The most stars caught in the hour wins. Join, then play.',
        startsAt: `${new Date().toISOString().slice(0, 19)}Z`,
        recurrence: { everySeconds: 3600 },
        durationSeconds: 3600,
        scoring: 'sum',
        joinRequired: true,
      },
    }),
  );
};

const send = (res: ServerResponse, status: number, body: string | Buffer, type: string) => {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', connection: 'close' });
  res.end(body);
};
const json = (res: ServerResponse, status: number, body: unknown) =>
  send(res, status, JSON.stringify(body), 'application/json');

const readJson = async (req: IncomingMessage): Promise<Record<string, unknown>> => {
  let text = '';
  for await (const chunk of req) {
    text += String(chunk);
    if (text.length > 4096) throw new ArcadiaError(413, 'PAYLOAD_TOO_LARGE', 'body too large');
  }
  const value: unknown = JSON.parse(text || '{}');
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
};

export const startDemoServer = async (options: DemoServerOptions): Promise<DemoServer> => {
  // The page loads the SDK as built for browsers: one self-contained module, built in memory as sdk/build.mjs
  // builds dist/arcadia-play.js, so that packing the SDK (which rebuilds sdk/dist) never pulls it from under us.
  const playModule = await build({
    entryPoints: [join(sdkDir, 'src/browser.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    logLevel: 'warning',
  });
  const files: Record<string, [Buffer, string]> = {
    '/demo': [readFileSync(join(here, 'index.html')), 'text/html; charset=utf-8'],
    '/demo/game.js': [readFileSync(join(here, 'game.js')), 'text/javascript; charset=utf-8'],
    '/demo/arcadia-play.js': [
      Buffer.from(playModule.outputFiles[0]?.contents ?? new Uint8Array()),
      'text/javascript; charset=utf-8',
    ],
  };
  let studio: Promise<Studio> | undefined;
  const ready = () => {
    studio ??= setUpStudio(options.apiUrl, options.idpUrl).catch((error: unknown) => {
      studio = undefined;
      throw error;
    });
    return studio;
  };

  const routes: Record<string, (req: IncomingMessage, url: URL) => Promise<unknown>> = {
    'GET /demo/config': async () => ({ apiUrl: options.apiUrl, gameId: (await ready()).gameId }),
    'POST /demo/sign-in': async (req) => {
      const { name } = await readJson(req);
      if (typeof name !== 'string' || !/^[a-z0-9_-]{1,64}$/.test(name))
        throw new ArcadiaError(400, 'VALIDATION_ERROR', 'name: 1 to 64 of a-z, 0-9, _ and -');
      const { token, subject } = await fetchLocalToken(name, options.idpUrl);
      return { token, subject };
    },
  };

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://demo');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const file = req.method === 'GET' ? files[path] : undefined;
    if (file) return send(res, 200, file[0], file[1]);
    const route = routes[`${req.method} ${path}`];
    if (!route) return json(res, 404, { error: { code: 'NOT_FOUND', message: `${req.method} ${path}` } });
    route(req, url).then(
      (body) => json(res, 200, body),
      (error: unknown) =>
        json(res, error instanceof ArcadiaError && error.status ? error.status : 502, {
          error: { message: error instanceof Error ? error.message : String(error) },
        }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
};
