// The README's commands work as written: the quickstart runs as is against the test stack (its API and identity
// provider instead of npm run dev's fixed ports), and every npm script and file it names exists.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { offlineBuildFolder } from '../../scripts/stack/offline.js';

const root = new URL('../../', import.meta.url);
const readme = readFileSync(new URL('README.md', root), 'utf8');
const scripts = (
  JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { scripts: Record<string, string> }
).scripts;

/** The first ```sh block after `heading`. */
const shellBlock = (heading: string): string => {
  const from = readme.indexOf(heading);
  const match = /```sh\n([\s\S]*?)```/.exec(readme.slice(from));
  if (from < 0 || !match?.[1]) throw new Error(`no sh block after ${heading}`);
  return match[1];
};

describe('README', () => {
  it('quickstart: signs in, registers a game, saves points and reads the leaderboard', async () => {
    const api = process.env.API_BASE_URL;
    if (!api) throw new Error('API_BASE_URL is not set: the test stack did not start serverless offline');
    const { stdout } = await promisify(execFile)(
      'bash',
      ['-e', '-o', 'pipefail', '-c', shellBlock('## Five-minute quickstart')],
      {
        cwd: root,
        env: { ...process.env, API: api },
        timeout: 120_000,
      },
    );
    const [saved, leaderboard] = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { data: unknown });
    expect(saved).toMatchObject({ data: { results: [{ status: 'accepted' }, { status: 'accepted' }] } });
    expect(leaderboard).toMatchObject({
      data: {
        period: 'alltime',
        entries: [
          { rank: 1, points: 120, playerId: 'x:player_one', displayName: null },
          { rank: 2, points: 80, playerId: 'x:player_two', displayName: null },
        ],
      },
    });
  }, 180_000);

  it('names only npm scripts and files that exist', () => {
    const npmRuns = [...readme.matchAll(/npm run (?:-s )?([\w:-]+)/g)].map((m) => m[1] ?? '');
    expect(npmRuns.length).toBeGreaterThan(5);
    for (const name of npmRuns) expect(scripts, `npm run ${name}`).toHaveProperty(name);
    const files = [
      ...readme.matchAll(/npx tsx ([\w/.-]+\.ts)/g),
      ...readme.matchAll(/`((?:docs|sdk)\/[\w/.-]+\.md)`/g),
    ].map((m) => m[1] ?? '');
    for (const file of files.filter((f) => !f.startsWith('sdk/')))
      expect(existsSync(new URL(file, root)), file).toBe(true);
  });
});

describe('npm run package next to a running npm run dev', () => {
  it('builds in .esbuild, which it removes when done, while serverless offline serves bundles from its own folder', () => {
    const config = parse(readFileSync(new URL('serverless.yml', root), 'utf8')) as {
      custom: { esbuild: { outputWorkFolder: string } };
    };
    // Without ARCADIA_ESBUILD_FOLDER (a plain `npm run package`) the work folder is .esbuild (+ --package's path).
    const workFolder = config.custom.esbuild.outputWorkFolder;
    expect(workFolder).toContain('env:ARCADIA_ESBUILD_FOLDER');
    expect(workFolder).toContain("'.esbuild'");
    const port = Number(new URL(process.env.API_BASE_URL ?? '').port);
    const folder = join(fileURLToPath(root), offlineBuildFolder(port));
    // The stack this suite runs serves from there: its bundles exist, outside .esbuild.
    const bundles = readdirSync(join(folder, '.build'), { recursive: true }).map(String);
    expect(bundles.filter((f) => f.endsWith('.mjs')).length).toBeGreaterThan(10);
    expect(relative(fileURLToPath(new URL('.esbuild', root)), folder).startsWith('..')).toBe(true);
  });
});
