// The demo game's web server (`npm run dev` starts it; the demo URL is printed): serves /demo, a small HTML5
// game that plays through the SDK's browser play client (sdk/dist/arcadia-play.js), and stands in for the
// game studio's backend: it registers the demo game and its OAuth client once with the studio's API key (never
// sent to the page). The page never sees a player's identity token: "Connect with Arcadia" gets it a grant for the
// demo game (the player signs in on the platform's connect page), and it plays and reads the boards with that.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { ArcadiaError, type components, createArcadiaClient, unwrap } from '../../sdk/src/index.js';
import { fetchLocalToken } from '../token.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const sdkDir = join(here, '../../sdk');
/** The demo studio's identity; the game is registered once per data directory under this idempotency key. */
const STUDIO = 'demo-studio';
const GAME_KEY = 'arcadia-demo-game-v1';
/** The demo's recurring tournament, created once per data directory (found again by its title). */
const TOURNAMENT_TITLE = 'Hourly Star Cup';
/** The name of the demo's OAuth clients (one per address the demo server listens on). */
const CLIENT_NAME = 'Star Catcher demo page';

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

type OAuthClient = components['schemas']['OAuthClient'];

/** The page's addresses: it may be opened at 127.0.0.1 or at localhost, each an origin of its own. */
const pageAddresses = (port: number) => {
  const origins = [`http://127.0.0.1:${port}`, `http://localhost:${port}`];
  return { origins, redirectUris: origins.map((origin) => `${origin}/demo`) };
};

/**
 * The demo game's OAuth client for this port: found again when registered before (the data directory outlives the
 * server), else registered; when the game has its maximum of clients, the oldest demo client gives way.
 */
const ensureClient = async ({ studio, gameId }: Studio, port: number): Promise<OAuthClient> => {
  const wanted = pageAddresses(port);
  const path = { params: { path: { gameId } } };
  const clients = unwrap(await studio.GET('/games/oauth-clients/{gameId}', path));
  const found = clients.find((c) => wanted.redirectUris.every((uri) => c.redirectUris.includes(uri)));
  if (found) return found;
  const create = () =>
    studio.POST('/games/oauth-clients/{gameId}', { ...path, body: { name: CLIENT_NAME, ...wanted } });
  try {
    return unwrap(await create());
  } catch (error) {
    const oldest = clients
      .filter((c) => c.name === CLIENT_NAME)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))[0];
    if (!(error instanceof ArcadiaError && error.code === 'CONFLICT' && oldest)) throw error;
    await studio.DELETE('/games/oauth-clients/{gameId}/{clientId}', {
      params: { path: { gameId, clientId: oldest.clientId } },
    });
    return unwrap(await create());
  }
};

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
  let port = 0;
  let setUp: Promise<{ gameId: string; clientId: string }> | undefined;
  const ready = () => {
    setUp ??= (async () => {
      const studio = await setUpStudio(options.apiUrl, options.idpUrl);
      return { gameId: studio.gameId, clientId: (await ensureClient(studio, port)).clientId };
    })().catch((error: unknown) => {
      setUp = undefined;
      throw error;
    });
    return setUp;
  };

  // What the page needs to connect and play: public values only (an OAuth client id is no secret).
  const routes: Record<string, (req: IncomingMessage, url: URL) => Promise<unknown>> = {
    'GET /demo/config': async () => ({ apiUrl: options.apiUrl, ...(await ready()) }),
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
  ({ port } = server.address() as AddressInfo);
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
};
