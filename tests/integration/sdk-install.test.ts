// The SDK as a studio gets it: a copy of sdk/ alone (outside the repository) installs, builds and packs; the packed
// tarball installs into an empty project; the README's server examples compile there under strict TypeScript and
// run as written against the test stack (their base URL and credentials come from the environment, as the README
// shows), and its browser example runs in Chromium on a page beside the packed arcadia-play.js: the player connects
// the game on the platform's connect page (a popup), and the page plays with the grant it gets.
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createArcadiaClient, unwrap } from '../../sdk/src/index.js';
import { launchBrowser } from '../helpers/browser.js';
import { approveInPopup } from '../helpers/connect.js';
import { registerGame } from '../helpers/games.js';
import { apiBaseUrl } from '../helpers/http.js';
import { idpToken } from '../helpers/idp.js';
import { createDeveloper } from '../helpers/users.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
};
const readme = readFileSync(join(root, 'sdk/README.md'), 'utf8');

/** The first ```<language> block after `heading` in the SDK's README. */
const block = (heading: string, language: 'ts' | 'html'): string => {
  const from = readme.indexOf(heading);
  const match = new RegExp(`\`\`\`${language}\n([\\s\\S]*?)\`\`\``).exec(readme.slice(from));
  if (from < 0 || !match?.[1]) throw new Error(`no ${language} block after ${heading}`);
  return match[1];
};
const tsBlock = (heading: string) => block(heading, 'ts');

// npm from the machine's cache first: what the repository's install already fetched.
const npm = (args: string[], cwd: string) =>
  run('npm', [...args, '--prefer-offline', '--no-audit', '--no-fund'], { cwd, timeout: 240_000 });

/** The files outside sdk/ that its sources import, transitively (relative imports only). */
const bundledPlatformModules = (): string[] => {
  const seen = new Set<string>();
  const visit = (file: string) => {
    for (const [, spec] of readFileSync(join(root, file), 'utf8').matchAll(
      /^(?:import|export)\b[^;]*?from '(\.{1,2}\/[^']+)';/gm,
    )) {
      const target = join(dirname(file), (spec ?? '').replace(/\.js$/, '.ts'));
      if (seen.has(target)) continue;
      seen.add(target);
      visit(target);
    }
  };
  for (const file of readdirSync(join(root, 'sdk/src')))
    if (file.endsWith('.ts')) visit(join('sdk/src', file));
  return [...seen].filter((file) => !file.startsWith('sdk/'));
};

let work: string;
let project: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'arcadia-sdk-'));
  // The package alone: sources, manifest, build script and README; no node_modules, no dist, no workspace.
  const copy = join(work, 'sdk');
  cpSync(join(root, 'sdk'), copy, {
    recursive: true,
    filter: (source) => !/[\\/](node_modules|dist)([\\/]|$)/.test(source.slice(root.length)),
  });
  // And the platform's modules it bundles (the payout rules and statements: the server's own, never a copy), at
  // the same place beside it; they import nothing but each other.
  for (const file of bundledPlatformModules()) {
    mkdirSync(dirname(join(work, file)), { recursive: true });
    cpSync(join(root, file), join(work, file));
  }
  await npm(['install'], copy);
  await npm(['pack', '--pack-destination', work], copy);
  const tarball = readdirSync(work).find((file) => file.endsWith('.tgz'));
  if (!tarball) throw new Error('npm pack wrote no tarball');

  project = join(work, 'studio');
  cpSync(join(root, 'tests/fixtures/sdk-studio'), project, { recursive: true });
  await npm(
    [
      'install',
      join(work, tarball),
      `typescript@${rootManifest.devDependencies.typescript}`,
      `@types/node@${rootManifest.devDependencies['@types/node']}`,
    ],
    project,
  );
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Compile `source` in the studio project (strict, NodeNext) and run it with `env`; its stdout. */
const runExample = async (name: string, source: string, env: Record<string, string>) => {
  writeFileSync(join(project, `${name}.ts`), source);
  await run(process.execPath, [join(project, 'node_modules/typescript/bin/tsc'), '-p', project], {
    cwd: project,
  });
  const { stdout } = await run(process.execPath, [join(project, `${name}.js`)], {
    cwd: project,
    env: { PATH: process.env.PATH ?? '', ...env },
    timeout: 60_000,
  });
  return stdout;
};

describe('the packed SDK in an empty project', () => {
  it('runs the README: credentials from a sign-in, then a game registered, points saved and the board read', async () => {
    const baseUrl = apiBaseUrl();
    const credentials = await runExample('credentials', tsBlock('## Credentials'), {
      ARCADIA_URL: baseUrl,
      ARCADIA_TOKEN: await idpToken(`studio-${Date.now()}`),
    });
    const env = Object.fromEntries(
      credentials
        .trim()
        .split('\n')
        .map((line) => line.split('=') as [string, string]),
    );
    expect(env.ARCADIA_API_KEY).toMatch(/^[0-9a-f-]{36}$/);
    expect(env.ARCADIA_SECRET_KEY?.length).toBeGreaterThan(20);

    const server = await runExample('server', tsBlock('## Server client'), {
      ARCADIA_URL: baseUrl,
      ARCADIA_API_KEY: env.ARCADIA_API_KEY ?? '',
      ARCADIA_SECRET_KEY: env.ARCADIA_SECRET_KEY ?? '',
    });
    expect(server.trim()).toBe('120');
  }, 180_000);

  it('installs the verify command (`npx @arcadia/sdk verify`): without a run it says how to call it; an unknown game, the API’s 404', async () => {
    const failed = await run(join(project, 'node_modules/.bin/arcadia-sdk'), [], { cwd: project }).then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error,
    );
    expect(failed?.code).toBe(2);
    expect(failed?.stderr).toContain('usage: npx @arcadia/sdk verify <gameId> <day | tournamentId/periodId>');
    // Against the API: an unknown game is the API's own 404 (the statement's or the pool's: both are read at
    // once), printed, and no check passes.
    const missing = await run(
      join(project, 'node_modules/.bin/arcadia-sdk'),
      ['verify', '00000000-0000-4000-8000-000000000000', '2026-01-01', '--api', apiBaseUrl()],
      { cwd: project },
    ).then(
      () => undefined,
      (error: { code?: number; stdout?: string; stderr?: string }) => error,
    );
    expect(missing?.code).toBe(2);
    expect(missing?.stderr).toMatch(
      /\/00000000-0000-4000-8000-000000000000\b.*: 404 NOT_FOUND Game not found/,
    );
    expect(missing?.stdout).not.toContain('✓');
  });
});

describe('the packed play client in a browser', () => {
  let server: Server;
  afterAll(() => server?.close());

  it("runs the README's page: connected in a popup, a session started with the grant, points flushed, committed and read, the board and rank read with the session token", async () => {
    const dev = await createDeveloper();
    const game = await registerGame(dev);
    const files: Record<string, [string, string]> = {
      '/game.html': [
        `<!doctype html><html><body>${block('## Browser play client', 'html')}</body></html>`,
        'text/html',
      ],
      '/arcadia-play.js': [
        readFileSync(join(project, 'node_modules/@arcadia/sdk/dist/arcadia-play.js'), 'utf8'),
        'text/javascript',
      ],
    };
    server = createServer((req, res) => {
      const file = files[new URL(req.url ?? '/', 'http://page').pathname];
      res.writeHead(file ? 200 : 404, { 'content-type': file?.[1] ?? 'text/plain' }).end(file?.[0] ?? '');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const origin = `http://127.0.0.1:${port}`;
    // The game's OAuth client, registered by its studio (the README's snippet): the page's address and origin.
    const studio = createArcadiaClient({ baseUrl: apiBaseUrl(), hmac: dev });
    const { clientId } = unwrap(
      await studio.POST('/games/oauth-clients/{gameId}', {
        params: { path: { gameId: game.id } },
        body: { name: 'Web', redirectUris: [`${origin}/game.html`], origins: [origin] },
      }),
    );
    const player = `player-${Date.now()}`;
    await idpToken(player); // the provider's user, who signs in on the connect page
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const logged = new Promise<string>((resolve, reject) => {
        page.on('console', (message) => {
          if (message.type() === 'log') resolve(message.text());
        });
        page.on('pageerror', reject);
      });
      const query = new URLSearchParams({ api: apiBaseUrl(), game: game.id, client: clientId });
      await page.goto(`${origin}/game.html?${query}`);
      const [popup] = await Promise.all([page.waitForEvent('popup'), page.click('#connect')]);
      await approveInPopup(popup, player);
      // committedPoints, today, allTime, the player's rank, the top entry's display name
      expect(await logged).toBe('10 10 10 #1 Star Player');
    } finally {
      await browser.close();
    }
  }, 120_000);
});
